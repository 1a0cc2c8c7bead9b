;; Dot products of float32 rows with queries, WebAssembly SIMD.
;; Source of dotKernelWasm.ts: run `npm run build:wasm` (scripts/build-wasm.mjs) after editing.
;;
;; Two kinds of functions, because the scans must return exactly what the JS
;; scan in vectorScan.ts returns (scores and rankings), and exact is slower:
;;
;; exact4: float64, bit-identical to JS. JS sums products in doubles with four
;;   accumulators s0..s3 (element j goes to s[j mod 4]) and returns
;;   ((s0 + s1) + s2) + s3. Products of two float32 values are exact in float64,
;;   so the same adds in the same order give the same bits. Lanes of $a hold
;;   (s0, s1), of $b (s2, s3); the shuffle moves lanes 2-3 of the row's f32x4
;;   down so promote_low can widen them. Bound by float64 arithmetic.
;;
;; approx1, approx8: float32, about twice as fast, plus each row's squared norm.
;;   The caller turns the norm into a bound on the float32 rounding error and
;;   recomputes exactly (in JS) every row whose score might reach its top k, so
;;   rankings stay exact while nearly all rows cost float32 arithmetic.
;;
;; Layout (byte addresses into the imported memory; dim is a multiple of 4):
;;   $mat    first row, dim float32; exact4 takes the next row $stride bytes
;;           further (dim * 4 when packed, more to sample rows), approx* packed
;;   $q      exact4: four float64[dim] back to back; approx*: float32[dim], 1 or 8
;;           (dot8, dot8x8: int16 queries over int8 rows, see there)
;;   $out    exact4: 4 float64 per row; approx1: 1 float32; approx8: 8 float32
;;   $norms  approx*: 1 float32 per row, the sum of its squares
;; Queries are minor in $out: out[k * r + i] is row r with query i.
;; The memory is imported without a maximum so any JS WebAssembly.Memory links.
;; Code in inner loops is written out, not called: calls there are not reliably inlined.
(module
  (import "env" "memory" (memory 1))

  (func (export "exact4") (param $mat i32) (param $rows i32) (param $dim i32) (param $stride i32) (param $q i32) (param $out i32)
    (local $p i32) (local $rowEnd i32) (local $q0 i32) (local $q1 i32) (local $q2 i32) (local $q3 i32) (local $qBytes i32)
    (local $x v128) (local $lo v128) (local $hi v128)
    (local $a0 v128) (local $b0 v128) (local $a1 v128) (local $b1 v128)
    (local $a2 v128) (local $b2 v128) (local $a3 v128) (local $b3 v128)
    (local.set $qBytes (i32.shl (local.get $dim) (i32.const 3)))
    (block $done
      (loop $row
        (br_if $done (i32.eqz (local.get $rows)))
        (local.set $a0 (v128.const i64x2 0 0)) (local.set $b0 (v128.const i64x2 0 0))
        (local.set $a1 (v128.const i64x2 0 0)) (local.set $b1 (v128.const i64x2 0 0))
        (local.set $a2 (v128.const i64x2 0 0)) (local.set $b2 (v128.const i64x2 0 0))
        (local.set $a3 (v128.const i64x2 0 0)) (local.set $b3 (v128.const i64x2 0 0))
        (local.set $p (local.get $mat))
        (local.set $q0 (local.get $q))
        (local.set $q1 (i32.add (local.get $q0) (local.get $qBytes)))
        (local.set $q2 (i32.add (local.get $q1) (local.get $qBytes)))
        (local.set $q3 (i32.add (local.get $q2) (local.get $qBytes)))
        (local.set $rowEnd (i32.add (local.get $p) (i32.shl (local.get $dim) (i32.const 2))))
        (loop $inner
          (local.set $x (v128.load (local.get $p)))
          (local.set $lo (f64x2.promote_low_f32x4 (local.get $x)))
          (local.set $hi (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $x) (local.get $x))))
          (local.set $a0 (f64x2.add (local.get $a0) (f64x2.mul (local.get $lo) (v128.load (local.get $q0)))))
          (local.set $b0 (f64x2.add (local.get $b0) (f64x2.mul (local.get $hi) (v128.load offset=16 (local.get $q0)))))
          (local.set $a1 (f64x2.add (local.get $a1) (f64x2.mul (local.get $lo) (v128.load (local.get $q1)))))
          (local.set $b1 (f64x2.add (local.get $b1) (f64x2.mul (local.get $hi) (v128.load offset=16 (local.get $q1)))))
          (local.set $a2 (f64x2.add (local.get $a2) (f64x2.mul (local.get $lo) (v128.load (local.get $q2)))))
          (local.set $b2 (f64x2.add (local.get $b2) (f64x2.mul (local.get $hi) (v128.load offset=16 (local.get $q2)))))
          (local.set $a3 (f64x2.add (local.get $a3) (f64x2.mul (local.get $lo) (v128.load (local.get $q3)))))
          (local.set $b3 (f64x2.add (local.get $b3) (f64x2.mul (local.get $hi) (v128.load offset=16 (local.get $q3)))))
          (local.set $p (i32.add (local.get $p) (i32.const 16)))
          (local.set $q0 (i32.add (local.get $q0) (i32.const 32)))
          (local.set $q1 (i32.add (local.get $q1) (i32.const 32)))
          (local.set $q2 (i32.add (local.get $q2) (i32.const 32)))
          (local.set $q3 (i32.add (local.get $q3) (i32.const 32)))
          (br_if $inner (i32.lt_u (local.get $p) (local.get $rowEnd))))
        (f64.store (local.get $out) (call $sum (local.get $a0) (local.get $b0)))
        (f64.store offset=8 (local.get $out) (call $sum (local.get $a1) (local.get $b1)))
        (f64.store offset=16 (local.get $out) (call $sum (local.get $a2) (local.get $b2)))
        (f64.store offset=24 (local.get $out) (call $sum (local.get $a3) (local.get $b3)))
        (local.set $out (i32.add (local.get $out) (i32.const 32)))
        (local.set $mat (i32.add (local.get $mat) (local.get $stride)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $row))))

  (func (export "approx1") (param $mat i32) (param $rows i32) (param $dim i32) (param $q i32) (param $out i32) (param $norms i32)
    (local $p i32) (local $rowEnd i32) (local $qq i32) (local $x v128) (local $a v128) (local $n v128)
    (local.set $p (local.get $mat))
    (block $done
      (loop $row
        (br_if $done (i32.eqz (local.get $rows)))
        (local.set $a (v128.const i64x2 0 0))
        (local.set $n (v128.const i64x2 0 0))
        (local.set $qq (local.get $q))
        (local.set $rowEnd (i32.add (local.get $p) (i32.shl (local.get $dim) (i32.const 2))))
        (loop $inner
          (local.set $x (v128.load (local.get $p)))
          (local.set $a (f32x4.add (local.get $a) (f32x4.mul (local.get $x) (v128.load (local.get $qq)))))
          (local.set $n (f32x4.add (local.get $n) (f32x4.mul (local.get $x) (local.get $x))))
          (local.set $p (i32.add (local.get $p) (i32.const 16)))
          (local.set $qq (i32.add (local.get $qq) (i32.const 16)))
          (br_if $inner (i32.lt_u (local.get $p) (local.get $rowEnd))))
        (f32.store (local.get $out) (call $hsum (local.get $a)))
        (f32.store (local.get $norms) (call $hsum (local.get $n)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $norms (i32.add (local.get $norms) (i32.const 4)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $row))))

  ;; Eight queries share each pass over the rows: reading the rows is what bounds a float32 scan.
  (func (export "approx8") (param $mat i32) (param $rows i32) (param $dim i32) (param $q i32) (param $out i32) (param $norms i32)
    (local $p i32) (local $rowEnd i32) (local $qq i32) (local $rowBytes i32) (local $qs1 i32) (local $qs2 i32) (local $qs3 i32) (local $qs4 i32) (local $qs5 i32) (local $qs6 i32) (local $qs7 i32)
    (local $x v128) (local $n v128) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $a4 v128) (local $a5 v128) (local $a6 v128) (local $a7 v128)
    (local.set $rowBytes (i32.shl (local.get $dim) (i32.const 2)))
    (local.set $qs1 (i32.mul (local.get $rowBytes) (i32.const 1)))
    (local.set $qs2 (i32.mul (local.get $rowBytes) (i32.const 2)))
    (local.set $qs3 (i32.mul (local.get $rowBytes) (i32.const 3)))
    (local.set $qs4 (i32.mul (local.get $rowBytes) (i32.const 4)))
    (local.set $qs5 (i32.mul (local.get $rowBytes) (i32.const 5)))
    (local.set $qs6 (i32.mul (local.get $rowBytes) (i32.const 6)))
    (local.set $qs7 (i32.mul (local.get $rowBytes) (i32.const 7)))
    (local.set $p (local.get $mat))
    (block $done
      (loop $row
        (br_if $done (i32.eqz (local.get $rows)))
        (local.set $a0 (v128.const i64x2 0 0))
        (local.set $a1 (v128.const i64x2 0 0))
        (local.set $a2 (v128.const i64x2 0 0))
        (local.set $a3 (v128.const i64x2 0 0))
        (local.set $a4 (v128.const i64x2 0 0))
        (local.set $a5 (v128.const i64x2 0 0))
        (local.set $a6 (v128.const i64x2 0 0))
        (local.set $a7 (v128.const i64x2 0 0))
        (local.set $n (v128.const i64x2 0 0))
        (local.set $qq (local.get $q))
        (local.set $rowEnd (i32.add (local.get $p) (local.get $rowBytes)))
        (loop $inner
          (local.set $x (v128.load (local.get $p)))
          (local.set $n (f32x4.add (local.get $n) (f32x4.mul (local.get $x) (local.get $x))))
          (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (local.get $x) (v128.load (local.get $qq)))))
          (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (local.get $x) (v128.load (i32.add (local.get $qq) (local.get $qs1))))))
          (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (local.get $x) (v128.load (i32.add (local.get $qq) (local.get $qs2))))))
          (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (local.get $x) (v128.load (i32.add (local.get $qq) (local.get $qs3))))))
          (local.set $a4 (f32x4.add (local.get $a4) (f32x4.mul (local.get $x) (v128.load (i32.add (local.get $qq) (local.get $qs4))))))
          (local.set $a5 (f32x4.add (local.get $a5) (f32x4.mul (local.get $x) (v128.load (i32.add (local.get $qq) (local.get $qs5))))))
          (local.set $a6 (f32x4.add (local.get $a6) (f32x4.mul (local.get $x) (v128.load (i32.add (local.get $qq) (local.get $qs6))))))
          (local.set $a7 (f32x4.add (local.get $a7) (f32x4.mul (local.get $x) (v128.load (i32.add (local.get $qq) (local.get $qs7))))))
          (local.set $p (i32.add (local.get $p) (i32.const 16)))
          (local.set $qq (i32.add (local.get $qq) (i32.const 16)))
          (br_if $inner (i32.lt_u (local.get $p) (local.get $rowEnd))))
        (f32.store offset=0 (local.get $out) (call $hsum (local.get $a0)))
        (f32.store offset=4 (local.get $out) (call $hsum (local.get $a1)))
        (f32.store offset=8 (local.get $out) (call $hsum (local.get $a2)))
        (f32.store offset=12 (local.get $out) (call $hsum (local.get $a3)))
        (f32.store offset=16 (local.get $out) (call $hsum (local.get $a4)))
        (f32.store offset=20 (local.get $out) (call $hsum (local.get $a5)))
        (f32.store offset=24 (local.get $out) (call $hsum (local.get $a6)))
        (f32.store offset=28 (local.get $out) (call $hsum (local.get $a7)))
        (f32.store (local.get $norms) (call $hsum (local.get $n)))
        (local.set $out (i32.add (local.get $out) (i32.const 32)))
        (local.set $norms (i32.add (local.get $norms) (i32.const 4)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $row))))

;; dot8: one query against int8 rows (a quantised copy of the matrix, dim a multiple
  ;;   of 16, rows packed at $mat8), the query as int16[dim] at $q16: out[r] (int32) =
  ;;   the exact integer dot product. A quarter of the bytes of a float32 pass, for a
  ;;   scan that memory bandwidth bounds; the caller bounds the quantisation error and
  ;;   rescores candidates exactly, as with approx*.
  (func (export "dot8") (param $mat8 i32) (param $rows i32) (param $dim i32) (param $q16 i32) (param $out i32)
    (local $p i32) (local $rowEnd i32) (local $qq i32) (local $x v128) (local $a v128) (local $b v128)
    (local.set $p (local.get $mat8))
    (block $done
      (loop $row
        (br_if $done (i32.eqz (local.get $rows)))
        (local.set $a (v128.const i64x2 0 0))
        (local.set $b (v128.const i64x2 0 0))
        (local.set $qq (local.get $q16))
        (local.set $rowEnd (i32.add (local.get $p) (local.get $dim)))
        (loop $inner
          (local.set $x (v128.load (local.get $p)))
          (local.set $a (i32x4.add (local.get $a) (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $x)) (v128.load (local.get $qq)))))
          (local.set $b (i32x4.add (local.get $b) (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $x)) (v128.load offset=16 (local.get $qq)))))
          (local.set $p (i32.add (local.get $p) (i32.const 16)))
          (local.set $qq (i32.add (local.get $qq) (i32.const 32)))
          (br_if $inner (i32.lt_u (local.get $p) (local.get $rowEnd))))
        (local.set $a (i32x4.add (local.get $a) (local.get $b)))
        (i32.store (local.get $out)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $a)) (i32x4.extract_lane 1 (local.get $a)))
            (i32.add (i32x4.extract_lane 2 (local.get $a)) (i32x4.extract_lane 3 (local.get $a)))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $row))))

;; dot8x8: dot8 for eight int16 queries in one pass over the int8 rows: out[8r + i]
  ;;   (int32) = the exact integer dot product of row r with query i. The queries are
  ;;   interleaved by 16 components so every load has a constant offset: chunk c of
  ;;   query i (its components 16c..16c+15) lies at $q16 + 256c + 32i. Reads each row
  ;;   once for eight queries, a quarter of approx8's bytes, and does half its work.
  (func (export "dot8x8") (param $mat8 i32) (param $rows i32) (param $dim i32) (param $q16 i32) (param $out i32)
    (local $p i32) (local $rowEnd i32) (local $qq i32) (local $lo v128) (local $hi v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local $a4 v128) (local $a5 v128) (local $a6 v128) (local $a7 v128)
    (local.set $p (local.get $mat8))
    (block $done
      (loop $row
        (br_if $done (i32.eqz (local.get $rows)))
        (local.set $a0 (v128.const i64x2 0 0))
        (local.set $a1 (v128.const i64x2 0 0))
        (local.set $a2 (v128.const i64x2 0 0))
        (local.set $a3 (v128.const i64x2 0 0))
        (local.set $a4 (v128.const i64x2 0 0))
        (local.set $a5 (v128.const i64x2 0 0))
        (local.set $a6 (v128.const i64x2 0 0))
        (local.set $a7 (v128.const i64x2 0 0))
        (local.set $qq (local.get $q16))
        (local.set $rowEnd (i32.add (local.get $p) (local.get $dim)))
        (loop $inner
          (local.set $lo (i16x8.extend_low_i8x16_s (v128.load (local.get $p))))
          (local.set $hi (i16x8.extend_high_i8x16_s (v128.load (local.get $p))))
          (local.set $a0 (i32x4.add (local.get $a0) (i32x4.add (i32x4.dot_i16x8_s (local.get $lo) (v128.load offset=0 (local.get $qq))) (i32x4.dot_i16x8_s (local.get $hi) (v128.load offset=16 (local.get $qq))))))
          (local.set $a1 (i32x4.add (local.get $a1) (i32x4.add (i32x4.dot_i16x8_s (local.get $lo) (v128.load offset=32 (local.get $qq))) (i32x4.dot_i16x8_s (local.get $hi) (v128.load offset=48 (local.get $qq))))))
          (local.set $a2 (i32x4.add (local.get $a2) (i32x4.add (i32x4.dot_i16x8_s (local.get $lo) (v128.load offset=64 (local.get $qq))) (i32x4.dot_i16x8_s (local.get $hi) (v128.load offset=80 (local.get $qq))))))
          (local.set $a3 (i32x4.add (local.get $a3) (i32x4.add (i32x4.dot_i16x8_s (local.get $lo) (v128.load offset=96 (local.get $qq))) (i32x4.dot_i16x8_s (local.get $hi) (v128.load offset=112 (local.get $qq))))))
          (local.set $a4 (i32x4.add (local.get $a4) (i32x4.add (i32x4.dot_i16x8_s (local.get $lo) (v128.load offset=128 (local.get $qq))) (i32x4.dot_i16x8_s (local.get $hi) (v128.load offset=144 (local.get $qq))))))
          (local.set $a5 (i32x4.add (local.get $a5) (i32x4.add (i32x4.dot_i16x8_s (local.get $lo) (v128.load offset=160 (local.get $qq))) (i32x4.dot_i16x8_s (local.get $hi) (v128.load offset=176 (local.get $qq))))))
          (local.set $a6 (i32x4.add (local.get $a6) (i32x4.add (i32x4.dot_i16x8_s (local.get $lo) (v128.load offset=192 (local.get $qq))) (i32x4.dot_i16x8_s (local.get $hi) (v128.load offset=208 (local.get $qq))))))
          (local.set $a7 (i32x4.add (local.get $a7) (i32x4.add (i32x4.dot_i16x8_s (local.get $lo) (v128.load offset=224 (local.get $qq))) (i32x4.dot_i16x8_s (local.get $hi) (v128.load offset=240 (local.get $qq))))))
          (local.set $p (i32.add (local.get $p) (i32.const 16)))
          (local.set $qq (i32.add (local.get $qq) (i32.const 256)))
          (br_if $inner (i32.lt_u (local.get $p) (local.get $rowEnd))))
        (i32.store offset=0 (local.get $out) (call $isum (local.get $a0)))
        (i32.store offset=4 (local.get $out) (call $isum (local.get $a1)))
        (i32.store offset=8 (local.get $out) (call $isum (local.get $a2)))
        (i32.store offset=12 (local.get $out) (call $isum (local.get $a3)))
        (i32.store offset=16 (local.get $out) (call $isum (local.get $a4)))
        (i32.store offset=20 (local.get $out) (call $isum (local.get $a5)))
        (i32.store offset=24 (local.get $out) (call $isum (local.get $a6)))
        (i32.store offset=28 (local.get $out) (call $isum (local.get $a7)))
        (local.set $out (i32.add (local.get $out) (i32.const 32)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $row))))

  ;; The sum of an i32x4's lanes (wrapping, as dot8's; the sums never overflow).
  (func $isum (param $v v128) (result i32)
    (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $v)) (i32x4.extract_lane 1 (local.get $v)))
      (i32.add (i32x4.extract_lane 2 (local.get $v)) (i32x4.extract_lane 3 (local.get $v)))))

;; quantize: the int8 copy for dot8. Per row (dim a multiple of 16): m = max |x|,
  ;;   inv = 127 / m (float32, stored at $invs), codes = clamp(nearest(x * inv), ±127)
  ;;   (int8 at $codes), and the sum of |codes| (int32 at $abs). So x = (c + e) / inv
  ;;   with |e| ≤ ½ + 127·2⁻²⁴ (the float32 product's rounding). m = 0 gives inv = ∞ and
  ;;   codes 0; NaN in a row gives inv NaN: the caller then rescores that row exactly.
  (func (export "quantize") (param $mat i32) (param $rows i32) (param $dim i32) (param $codes i32) (param $invs i32) (param $abs i32)
    (local $p i32) (local $rowEnd i32) (local $m v128) (local $inv f32) (local $iv v128) (local $acc v128)
    (local $c0 v128) (local $c1 v128) (local $c2 v128) (local $c3 v128)
    (local.set $p (local.get $mat))
    (block $done
      (loop $row
        (br_if $done (i32.eqz (local.get $rows)))
        (local.set $rowEnd (i32.add (local.get $p) (i32.shl (local.get $dim) (i32.const 2))))
        (local.set $m (v128.const i64x2 0 0))
        (block $maxDone
          (loop $max
            (br_if $maxDone (i32.ge_u (local.get $p) (local.get $rowEnd)))
            (local.set $m (f32x4.max (local.get $m) (f32x4.abs (v128.load (local.get $p)))))
            (local.set $p (i32.add (local.get $p) (i32.const 16)))
            (br $max)))
        (local.set $inv
          (f32.div (f32.const 127)
            (f32.max (f32.max (f32x4.extract_lane 0 (local.get $m)) (f32x4.extract_lane 1 (local.get $m)))
                     (f32.max (f32x4.extract_lane 2 (local.get $m)) (f32x4.extract_lane 3 (local.get $m))))))
        (f32.store (local.get $invs) (local.get $inv))
        (local.set $iv (f32x4.splat (local.get $inv)))
        (local.set $acc (v128.const i64x2 0 0))
        (local.set $p (i32.sub (local.get $rowEnd) (i32.shl (local.get $dim) (i32.const 2))))
        (block $codesDone
          (loop $code
            (br_if $codesDone (i32.ge_u (local.get $p) (local.get $rowEnd)))
            (local.set $c0 (call $code4 (v128.load (local.get $p)) (local.get $iv)))
            (local.set $c1 (call $code4 (v128.load offset=16 (local.get $p)) (local.get $iv)))
            (local.set $c2 (call $code4 (v128.load offset=32 (local.get $p)) (local.get $iv)))
            (local.set $c3 (call $code4 (v128.load offset=48 (local.get $p)) (local.get $iv)))
            (local.set $acc (i32x4.add (local.get $acc)
              (i32x4.add (i32x4.add (i32x4.abs (local.get $c0)) (i32x4.abs (local.get $c1)))
                         (i32x4.add (i32x4.abs (local.get $c2)) (i32x4.abs (local.get $c3))))))
            (v128.store (local.get $codes)
              (i8x16.narrow_i16x8_s
                (i16x8.narrow_i32x4_s (local.get $c0) (local.get $c1))
                (i16x8.narrow_i32x4_s (local.get $c2) (local.get $c3))))
            (local.set $codes (i32.add (local.get $codes) (i32.const 16)))
            (local.set $p (i32.add (local.get $p) (i32.const 64)))
            (br $code)))
        (i32.store (local.get $abs)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (local.set $invs (i32.add (local.get $invs) (i32.const 4)))
        (local.set $abs (i32.add (local.get $abs) (i32.const 4)))
        (local.set $rows (i32.sub (local.get $rows) (i32.const 1)))
        (br $row))))

;; accumulate: BM25's inner loop over one term's postings (PostingsIndex): for p in
  ;;   [from, to), acc[docs[p]] += w * impact[p], with docs int32 at $docs, impact and acc
  ;;   float32 at $imp and $acc (byte addresses of element 0). In float64 and rounded to
  ;;   float32 once per add, as JS computes `acc[d] += w * impact[p]` on Float32Arrays:
  ;;   bit-identical sums. Scalar (a scatter-add), but without JS's bounds checks: ~2.6×.
  (func (export "accumulate") (param $docs i32) (param $imp i32) (param $acc i32) (param $from i32) (param $to i32) (param $w f64)
    (local $p i32) (local $a i32)
    (local.set $p (local.get $from))
    (block $done
      (br_if $done (i32.ge_u (local.get $p) (local.get $to)))
      (loop $post
        (local.set $a (i32.add (local.get $acc)
          (i32.shl (i32.load (i32.add (local.get $docs) (i32.shl (local.get $p) (i32.const 2)))) (i32.const 2))))
        (f32.store (local.get $a)
          (f32.demote_f64
            (f64.add (f64.promote_f32 (f32.load (local.get $a)))
              (f64.mul (local.get $w)
                (f64.promote_f32 (f32.load (i32.add (local.get $imp) (i32.shl (local.get $p) (i32.const 2)))))))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br_if $post (i32.lt_u (local.get $p) (local.get $to))))))

  ;; Four codes: clamp(nearest(x * inv), -127, 127) as int32 (NaN → 0).
  (func $code4 (param $x v128) (param $iv v128) (result v128)
    (i32x4.max_s (i32x4.splat (i32.const -127))
      (i32x4.min_s (i32x4.splat (i32.const 127))
        (i32x4.trunc_sat_f32x4_s (f32x4.nearest (f32x4.mul (local.get $x) (local.get $iv)))))))

  ;; ((s0 + s1) + s2) + s3, the JS order.
  (func $sum (param $a v128) (param $b v128) (result f64)
    (f64.add
      (f64.add
        (f64.add (f64x2.extract_lane 0 (local.get $a)) (f64x2.extract_lane 1 (local.get $a)))
        (f64x2.extract_lane 0 (local.get $b)))
      (f64x2.extract_lane 1 (local.get $b))))

  (func $hsum (param $v v128) (result f32)
    (f32.add (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
                 (f32.add (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))
)
