// Worker-thread entry for tesseract.js (bundled as dist/ocr/tesseract-worker.js; run as is from
// sources). It runs tesseract.js's own Node worker script, with one addition: an error thrown
// inside the worker (a WebAssembly abort on a huge or broken image, a missing core file) would
// otherwise surface as an unhandled 'error' event on the Worker and take the whole process down —
// the VS Code extension host included. Here it becomes the rejection of the job being run.
'use strict';
const { parentPort } = require('node:worker_threads');

let current;
parentPort.on('message', (packet) => {
  current = packet;
});
const fail = (err) => {
  const message = err && err.message ? err.message : String(err);
  if (current) parentPort.postMessage({ workerId: current.workerId, jobId: current.jobId, action: current.action, status: 'reject', data: `OCR engine failed: ${message}` });
  current = undefined;
};
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);

require('tesseract.js/src/worker-script/node/index.js');
