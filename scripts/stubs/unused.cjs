// Stands in for modules a bundled library requires but that Similar Sources never
// calls (vectra's own BM25 mode and its English NLP model): keeps the engine small.
module.exports = function unused() {
  throw new Error('this code path of a bundled library is not used by Similar Sources');
};
module.exports.default = module.exports;
