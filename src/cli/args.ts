/**
 * The command line, read by node:util's parseArgs: `--flag value`, `--flag=value`,
 * repeated flags, booleans (`--json`, `--no-rerank`), `--` before positionals.
 * Which options a command takes is checked per command (checkKnown); values that
 * are settings are checked against the one settings schema (settingOption).
 */
import { parseArgs as parseArgv } from 'node:util';
import { SETTINGS, settingProblem, type SettingKey, type Settings } from '../shared/settings';

export interface ParsedArgs {
  command?: string;
  positionals: string[];
  options: Map<string, string[]>;
  flags: Set<string>;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Options the CLI knows: `booleans` take no value, `strings` one each time they are given. */
export interface OptionNames {
  booleans: readonly string[];
  strings: readonly string[];
  /**
   * Options whose value may be left out (`--zotero`, `--zotero <dir>`, `--zotero=<dir>`): the next
   * argument is the value unless it starts with "-"; left out, the value is ''.
   */
  optionalValues?: readonly string[];
}

export function parseArgs(argv: string[], names: OptionNames): ParsedArgs {
  const options = Object.fromEntries([
    ...names.booleans.map((n) => [n, { type: 'boolean' as const }]),
    ...names.strings.map((n) => [n, { type: 'string' as const, multiple: true }]),
    ...(names.optionalValues ?? []).map((n) => [n, { type: 'boolean' as const }]),
  ]);
  // Not strict: an unknown option is reported by the command (checkKnown), with the command's usage.
  const { tokens } = parseArgv({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
  const out: ParsedArgs = { positionals: [], options: new Map(), flags: new Set() };
  let terminated = false;
  const positional = (value: string) => {
    if (out.command === undefined && !terminated) out.command = value;
    else out.positionals.push(value);
  };
  let shortAt = -1;
  let awaiting: { name: string; index: number } | undefined;
  for (const t of tokens) {
    const waiting = awaiting;
    awaiting = undefined;
    if (waiting && t.kind === 'positional' && t.index === waiting.index + 1 && out.command !== undefined && !t.value.startsWith('-')) {
      out.options.set(waiting.name, [...(out.options.get(waiting.name) ?? []).slice(0, -1), t.value]);
      continue;
    }
    if (t.kind === 'option-terminator') terminated = true;
    else if (t.kind === 'positional') positional(t.value);
    else if (!t.rawName.startsWith('--')) {
      // No short options: "-x" is a positional, as the user wrote it (once for a group like "-ab").
      if (t.index !== shortAt) positional(argv[t.index]);
      shortAt = t.index;
    } else if (names.optionalValues?.includes(t.name)) {
      out.options.set(t.name, [...(out.options.get(t.name) ?? []), t.value ?? '']);
      if (t.value === undefined) awaiting = { name: t.name, index: t.index };
    } else if (names.booleans.includes(t.name)) {
      if (t.value !== undefined) throw new UsageError(`--${t.name} takes no value`);
      out.flags.add(t.name);
    } else if (names.strings.includes(t.name)) {
      if (t.value === undefined) throw new UsageError(`--${t.name} needs a value`);
      out.options.set(t.name, [...(out.options.get(t.name) ?? []), t.value]);
    } else out.flags.add(t.name);
  }
  return out;
}

export function one(args: ParsedArgs, name: string): string | undefined {
  const v = args.options.get(name);
  if (v && v.length > 1) throw new UsageError(`--${name} given more than once`);
  return v?.[0];
}

export function all(args: ParsedArgs, name: string): string[] {
  return args.options.get(name) ?? [];
}

export function intOption(args: ParsedArgs, name: string, def: number, min: number, max: number): number {
  const v = one(args, name);
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max} (got "${v}")`);
  return n;
}

type StringSetting = { [K in SettingKey]: Settings[K] extends string ? K : never }[SettingKey];

/** A flag that sets a string setting (--ocr, --pooling, --granularity…), checked against the settings schema. */
export function settingOption<K extends StringSetting>(args: ParsedArgs, name: string, key: K): Settings[K] | undefined {
  const v = one(args, name);
  if (v === undefined) return undefined;
  if (settingProblem(key, v)) {
    const spec = SETTINGS[key];
    // The choices as a sentence ("auto or off"); the empty choice (the model's own) is the flag left out.
    const choices = 'enum' in spec ? spec.enum.filter(Boolean) : [];
    throw new UsageError(
      `--${name} must be ${choices.slice(0, -1).join(', ')}${choices.length > 1 ? ' or ' : ''}${choices[choices.length - 1] ?? 'valid'} (got "${v}")`,
    );
  }
  return v as Settings[K];
}

export function checkKnown(args: ParsedArgs, allowed: readonly string[]) {
  for (const k of [...args.options.keys(), ...args.flags]) {
    if (!allowed.includes(k)) throw new UsageError(`unknown option --${k}`);
  }
}
