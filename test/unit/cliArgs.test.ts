import assert from 'node:assert/strict';
import { all, checkKnown, one, parseArgs, settingOption, UsageError } from '../../src/cli/args';

const NAMES = { booleans: ['json', 'no-cache'], strings: ['k', 'library', 'ocr', 'pooling', 'granularity'] };
const usage = (message: RegExp) => (e: unknown) => e instanceof UsageError && message.test(e.message);

describe('CLI command line (args.ts on node:util parseArgs)', () => {
  it('reads the command, positionals, --flag value, --flag=value, repeated flags and booleans', () => {
    const a = parseArgs(['search', 'grain', 'trade', '--k=3', '--library', 'a', '--library', 'b', '--json', '--no-cache'], NAMES);
    assert.equal(a.command, 'search');
    assert.deepEqual(a.positionals, ['grain', 'trade']);
    assert.equal(one(a, 'k'), '3');
    assert.deepEqual(all(a, 'library'), ['a', 'b']);
    assert.deepEqual([...a.flags].sort(), ['json', 'no-cache']);
    assert.throws(() => one(a, 'library'), usage(/--library given more than once/));
  });

  it('takes the next word as a value whatever it is, and everything after -- as positionals', () => {
    const a = parseArgs(['search', '--k', '--json', '--', '--library', 'x'], NAMES);
    assert.equal(one(a, 'k'), '--json');
    assert.deepEqual(a.positionals, ['--library', 'x']);
    assert.equal(parseArgs(['--', 'index'], NAMES).command, undefined, 'after --, not a command');
  });

  it('keeps a word that starts with one dash as the user wrote it', () => {
    assert.deepEqual(parseArgs(['segment', '-ab', '-5'], NAMES).positionals, ['-ab', '-5']);
  });

  it('says what is wrong: a boolean with a value, a value missing, an option the command does not take', () => {
    assert.throws(() => parseArgs(['status', '--json=1'], NAMES), usage(/^--json takes no value$/));
    assert.throws(() => parseArgs(['search', 'x', '--k'], NAMES), usage(/^--k needs a value$/));
    const a = parseArgs(['status', '--bogus', '3'], NAMES);
    assert.throws(() => checkKnown(a, ['json']), usage(/^unknown option --bogus$/));
  });

  it('checks a flag that sets a setting against the settings schema', () => {
    const a = parseArgs(['index', '--ocr', 'sometimes', '--pooling', 'cls', '--granularity', 'chapter'], NAMES);
    assert.throws(() => settingOption(a, 'ocr', 'ocr'), usage(/^--ocr must be auto or off \(got "sometimes"\)$/));
    assert.equal(settingOption(a, 'pooling', 'localModelPooling'), 'cls');
    assert.throws(() => settingOption(a, 'granularity', 'granularity'), usage(/^--granularity must be section, paragraph or sentence/));
    assert.equal(settingOption(parseArgs(['index'], NAMES), 'ocr', 'ocr'), undefined, 'left out: the setting stands');
  });
});
