// Generates core/src/test/resources/jcs/es-numbers.txt: doubles as raw IEEE-754 bits (16 hex
// digits) and the string ECMAScript's JSON.stringify gives for them, one per line. The Java test
// EsNumberFormatTest checks that RFC 8785 canonicalization prints every one of them identically.
//
// Deterministic (seeded splitmix64), so re-running it reproduces the committed file:
//   node core/src/test/node/es-numbers.mjs > core/src/test/resources/jcs/es-numbers.txt
// Generated with node v20.

const MASK = (1n << 64n) - 1n;
let state = 0x7a11_5eedn;
function next64() {
  state = (state + 0x9e3779b97f4a7c15n) & MASK;
  let z = state;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return z ^ (z >> 31n);
}
const randInt = (n) => Number(next64() % BigInt(n)); // n < 2^53, bias irrelevant here
const unit = () => Number(next64() >> 11n) / 2 ** 53;

const view = new DataView(new ArrayBuffer(8));
const fromBits = (bits) => { view.setBigUint64(0, bits); return view.getFloat64(0); };
const toBits = (x) => { view.setFloat64(0, x); return view.getBigUint64(0); };
const nextUp = (x) => (x >= 0 ? fromBits(toBits(x) + 1n) : fromBits(toBits(x) - 1n));
const nextDown = (x) => -nextUp(-x);

const out = [];
const seen = new Set();
function emit(x) {
  if (!Number.isFinite(x)) return;
  const hex = toBits(x).toString(16).padStart(16, '0');
  if (seen.has(hex)) return;
  seen.add(hex);
  out.push(hex + ' ' + JSON.stringify(x));
}
function emitAround(x) {
  emit(x); emit(nextUp(x)); emit(nextDown(x)); emit(-x);
}

// Edge cases.
[0, -0, Number.MIN_VALUE, Number.MAX_VALUE, 2.2250738585072014e-308, 0.1 + 0.2, 1 / 3, 2 / 3,
  0.1, 0.2, 0.3, 0.7, 1.1, 100, 1e7, 1234567.0, 4.35, 4.5, 333333333.33333329, 1e30, 2e-3,
  1e-27, 9007199254740993, 295147905179352830000, 4.940656458412e-324, 1.7976931348623157e308,
  123456789012345680000, 999999999999999900000, 9.999999999999999e20, 1.5e-7, 1.2345e-6,
  5e-324, 1e-323, 1.5e-323, 2e-323, 2.5e-323, 1e-322, 1e23, 8.41e21, 5.5e-7, 0.000001,
  0.0000001, 1e-7, 1e-6, 1e21, 1e20].forEach(emitAround);
for (let e = -330; e <= 310; e++) emitAround(Number('1e' + e));
for (let e = -1074; e <= 1023; e++) emitAround(2 ** e);
for (const p of [53, 54, 63, 64]) {
  for (let d = -3; d <= 3; d++) emit(2 ** p + d); // rounding makes some of these coincide
}
for (let k = 1; k <= 300; k++) emit(k * Number.MIN_VALUE);

// Random doubles of every kind.
while (seen.size < 5500) { // uniformly random bit patterns: all exponents
  emit(fromBits(next64()));
}
while (seen.size < 9500) { // short decimals at every scale, as people type them
  const digits = 1 + randInt(17);
  const s = String(1 + randInt(10 ** Math.min(digits, 15)));
  emit(Number(s + 'e' + (randInt(80) - 40)) * (randInt(2) ? 1 : -1));
}
while (seen.size < 14500) { // computed values across the plain/exponent boundaries
  emit(unit() * 10 ** (randInt(40) - 12) * (randInt(2) ? 1 : -1));
}
while (seen.size < 17000) { // large integers beyond 2^53
  emit(Number(next64() >> BigInt(randInt(12))) * 2 ** randInt(20));
}
while (seen.size < 19000) { // subnormals
  emit(fromBits(next64() >> BigInt(12 + randInt(52))));
}
while (seen.size < 21000) { // integers and halves people use
  emit(randInt(2 ** 53) / (randInt(3) + 1) * (randInt(2) ? 1 : -1));
}
process.stdout.write(out.join('\n') + '\n');
