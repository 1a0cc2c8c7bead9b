// Types of nativeBinary.mjs, for the TypeScript tests.
export interface NativeHeader {
  format: 'elf' | 'macho' | 'macho-fat' | 'pe';
  os: 'linux' | 'darwin' | 'win32';
  arch: string;
  bits: number;
  needs: string[];
  delayNeeds?: string[];
  rpaths?: string[];
  arches?: string[];
  id?: string;
  libc?: 'glibc' | 'musl';
  problem?: string;
}
export const ELF_MACHINES: Record<number, string>;
export const MACHO_CPUS: Record<number, string>;
export const PE_MACHINES: Record<number, string>;
export const NATIVE_NAME: RegExp;
export function readNativeHeader(buf: Buffer): NativeHeader | null;
export function describeHeader(h: NativeHeader): string;
