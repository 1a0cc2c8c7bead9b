// Types of package-vsix.mjs, for the TypeScript tests.
export function plannedTargets(binDir?: string): { built: string[]; skipped: string[] };
