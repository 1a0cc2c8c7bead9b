/**
 * A pure-JS DOMMatrix (2-D affine subset) for pdf.js under Node. pdf-parse
 * otherwise loads the native @napi-rs/canvas just for this class; text
 * extraction only needs the arithmetic, and a pure-JS class keeps the engine
 * bundle free of platform-specific binaries (same text either way).
 */
type Init = number[] | Float32Array | Float64Array | string | undefined;

export class DOMMatrixShim {
  a = 1;
  b = 0;
  c = 0;
  d = 1;
  e = 0;
  f = 0;

  constructor(init?: Init) {
    if (Array.isArray(init) || init instanceof Float32Array || init instanceof Float64Array) {
      const v = Array.from(init);
      if (v.length === 6) [this.a, this.b, this.c, this.d, this.e, this.f] = v;
      else if (v.length === 16) [this.a, this.b, this.c, this.d, this.e, this.f] = [v[0], v[1], v[4], v[5], v[12], v[13]];
      else throw new TypeError('DOMMatrix: expected 6 or 16 values');
    }
  }

  get m11() {
    return this.a;
  }
  get m12() {
    return this.b;
  }
  get m21() {
    return this.c;
  }
  get m22() {
    return this.d;
  }
  get m41() {
    return this.e;
  }
  get m42() {
    return this.f;
  }
  get is2D() {
    return true;
  }
  get isIdentity() {
    return this.a === 1 && this.b === 0 && this.c === 0 && this.d === 1 && this.e === 0 && this.f === 0;
  }

  private set6(a: number, b: number, c: number, d: number, e: number, f: number): this {
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
    this.e = e;
    this.f = f;
    return this;
  }

  /** this = this × m */
  multiplySelf(m: { a: number; b: number; c: number; d: number; e: number; f: number }): this {
    return this.set6(
      this.a * m.a + this.c * m.b,
      this.b * m.a + this.d * m.b,
      this.a * m.c + this.c * m.d,
      this.b * m.c + this.d * m.d,
      this.a * m.e + this.c * m.f + this.e,
      this.b * m.e + this.d * m.f + this.f,
    );
  }

  /** this = m × this */
  preMultiplySelf(m: { a: number; b: number; c: number; d: number; e: number; f: number }): this {
    const t = new DOMMatrixShim([m.a, m.b, m.c, m.d, m.e, m.f]).multiplySelf(this);
    return this.set6(t.a, t.b, t.c, t.d, t.e, t.f);
  }

  multiply(m: DOMMatrixShim): DOMMatrixShim {
    return this.clone().multiplySelf(m);
  }

  translateSelf(tx = 0, ty = 0): this {
    return this.multiplySelf(new DOMMatrixShim([1, 0, 0, 1, tx, ty]));
  }

  translate(tx = 0, ty = 0): DOMMatrixShim {
    return this.clone().translateSelf(tx, ty);
  }

  scaleSelf(sx = 1, sy = sx): this {
    return this.multiplySelf(new DOMMatrixShim([sx, 0, 0, sy, 0, 0]));
  }

  scale(sx = 1, sy = sx): DOMMatrixShim {
    return this.clone().scaleSelf(sx, sy);
  }

  invertSelf(): this {
    const det = this.a * this.d - this.b * this.c;
    if (!det) return this.set6(NaN, NaN, NaN, NaN, NaN, NaN);
    return this.set6(
      this.d / det,
      -this.b / det,
      -this.c / det,
      this.a / det,
      (this.c * this.f - this.d * this.e) / det,
      (this.b * this.e - this.a * this.f) / det,
    );
  }

  inverse(): DOMMatrixShim {
    return this.clone().invertSelf();
  }

  transformPoint(p: { x?: number; y?: number } = {}): { x: number; y: number; z: number; w: number } {
    const x = p.x ?? 0;
    const y = p.y ?? 0;
    return { x: this.a * x + this.c * y + this.e, y: this.b * x + this.d * y + this.f, z: 0, w: 1 };
  }

  clone(): DOMMatrixShim {
    return new DOMMatrixShim([this.a, this.b, this.c, this.d, this.e, this.f]);
  }

  toFloat64Array(): Float64Array {
    return new Float64Array([this.a, this.b, 0, 0, this.c, this.d, 0, 0, 0, 0, 1, 0, this.e, this.f, 0, 1]);
  }
}

export function installDomMatrix(): void {
  const g = globalThis as { DOMMatrix?: unknown };
  if (!g.DOMMatrix) g.DOMMatrix = DOMMatrixShim;
}
