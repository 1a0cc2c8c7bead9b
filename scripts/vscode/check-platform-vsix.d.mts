// Types of check-platform-vsix.mjs, for the TypeScript tests.
import type { NativeHeader } from './nativeBinary.mjs';
export interface PlatformCheck {
  problems: string[];
  natives: { name: string; size: number; header: NativeHeader }[];
}
export function platformProblems(target: string, files: { name: string; bytes: Buffer }[]): PlatformCheck;
export function checkVsixFile(path: string): PlatformCheck & { target: string; size: number };
export function reportLines(path: string, r: PlatformCheck & { target: string; size: number }): string[];
