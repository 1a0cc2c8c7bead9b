/** A small argv parser: `--flag value`, `--flag=value`, repeated flags, booleans, `--no-x`. */

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

export function parseArgs(argv: string[], booleans: ReadonlySet<string>): ParsedArgs {
  const out: ParsedArgs = { positionals: [], options: new Map(), flags: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (booleans.has(name) || (name.startsWith('no-') && booleans.has(name))) {
        if (eq > 0) throw new UsageError(`--${name} takes no value`);
        out.flags.add(name);
        continue;
      }
      const value = eq > 0 ? a.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      const list = out.options.get(name) ?? [];
      list.push(value);
      out.options.set(name, list);
      continue;
    }
    if (out.command === undefined) out.command = a;
    else out.positionals.push(a);
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

export function checkKnown(args: ParsedArgs, allowed: readonly string[]) {
  for (const k of [...args.options.keys(), ...args.flags]) {
    if (!allowed.includes(k)) throw new UsageError(`unknown option --${k}`);
  }
}
