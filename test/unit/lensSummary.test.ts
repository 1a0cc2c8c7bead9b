import assert from 'node:assert/strict';
import { BANDS, lensSummary } from '../../src/shared/bands';

const card = (similarity: number, name: string) => ({ similarity, name });
const strong = BANDS.strong + 0.1;
const related = (BANDS.strong + BANDS.related) / 2;
const weak = BANDS.related / 2;

describe('lensSummary (the CodeLens of a segment)', () => {
  it('counts the cards of the best band and names the top card', () => {
    const s = lensSummary([card(strong + 0.05, 'Whitfield'), card(strong, 'Brückner'), card(related, 'Ménard'), card(weak, 'x')], 'related');
    assert.equal(s.kind, 'signal');
    if (s.kind !== 'signal') return;
    assert.deepEqual([s.band, s.count, s.top.name], ['strong', 2, 'Whitfield']);
  });
  it('reports related cards when nothing is strong and the setting allows related', () => {
    const s = lensSummary([card(related, 'a'), card(related - 0.01, 'b'), card(weak, 'c')], 'related');
    assert.deepEqual(s.kind === 'signal' && [s.band, s.count], ['related', 2]);
  });
  it('says "below" when the best card is weaker than the chosen band', () => {
    assert.deepEqual(lensSummary([card(related, 'a')], 'strong'), { kind: 'below', minBand: 'strong', best: 'related' });
    assert.deepEqual(lensSummary([card(weak, 'a')], 'related'), { kind: 'below', minBand: 'related', best: 'weak' });
    assert.deepEqual(lensSummary([], 'weak'), { kind: 'below', minBand: 'weak', best: null });
  });
  it('counts weak cards when the setting asks for every source', () => {
    const s = lensSummary([card(weak, 'a'), card(weak / 2, 'b')], 'weak');
    assert.deepEqual(s.kind === 'signal' && [s.band, s.count], ['weak', 2]);
  });
});
