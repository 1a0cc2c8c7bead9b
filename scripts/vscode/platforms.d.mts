// Types of platforms.mjs, for the TypeScript tests.
export const TARGETS: string[];
export const UNIVERSAL: 'universal';
export const BINDING: string;
export function targetPlatform(target: string): { os: string; arch: string; libc?: 'glibc' | 'musl' };
export function hostTarget(): string;
export function ortBinDir(fromDir?: string): string;
export function ortVersion(fromDir?: string): string;
export function runtimeFiles(binDir: string, target: string): string[] | null;
export function bundledName(lib: string, format: string): string | undefined;
export function fileNamed(files: string[], name: string, format: string): string | undefined;
export function placeRuntime(distDir: string, target: string, binDir?: string): string[];
