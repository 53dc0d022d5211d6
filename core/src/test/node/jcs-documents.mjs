// Generates core/src/test/resources/jcs/documents.txt: pairs of lines, a random JSON document
// and its RFC 8785 canonical form computed by an independent JavaScript implementation (RFC 8785
// was designed so that sorting member names and using JSON.stringify for strings and numbers is
// a complete implementation). Exercises member order, escapes, astral-plane characters and
// alternative number spellings against the Java canonicalizer (JcsDocumentsTest).
//
// Deterministic (seeded splitmix64):
//   node core/src/test/node/jcs-documents.mjs > core/src/test/resources/jcs/documents.txt

const MASK = (1n << 64n) - 1n;
let state = 0x0d0c_5eedn;
function next64() {
  state = (state + 0x9e3779b97f4a7c15n) & MASK;
  let z = state;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
  return z ^ (z >> 31n);
}
const randInt = (n) => Number(next64() % BigInt(n));
const pick = (xs) => xs[randInt(xs.length)];
const view = new DataView(new ArrayBuffer(8));
const fromBits = (bits) => { view.setBigUint64(0, bits); return view.getFloat64(0); };

// Values: objects are [['name', value], ...] so generation controls member order.
const CHARS = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-./:',
  '"', '\\', '/', '\u0000', '\u0001', '\u0008', '\u0009', '\u000a', '\u000c', '\u000d', '\u001f',
  '\u007f', '\u0080', '\u00e9', '\u00f6', '\u00ff', '\u0100', '\u030a', '\u20ac', '\u2028',
  '\u2029', '\ufb33', '\ufeff', '\uffff', '\u4e2d', '\ud83d\ude02', '\ud800\udc00',
  '\udbff\udfff', '\ud83c\udf89',
];
function randString(max) {
  let s = '';
  for (let i = randInt(max + 1); i > 0; i--) s += pick(CHARS);
  return s;
}
function randNumber() {
  switch (randInt(5)) {
    case 0: return randInt(1000) - 500;
    case 1: return (randInt(2 ** 30) - 2 ** 29) / 2 ** randInt(20);
    case 2: return Number(`${randInt(10 ** 9)}e${randInt(60) - 30}`);
    case 3: { const x = fromBits(next64()); return Number.isFinite(x) ? x : 0.5; }
    default: return pick([0, -0, 1e21, 1e-7, 123456789012345680000, 0.1 + 0.2, 5e-324,
      1.7976931348623157e308, 2 ** 53 + 2, -1e-6]);
  }
}
function randValue(depth) {
  const r = randInt(depth > 4 ? 6 : 9);
  switch (r) {
    case 0: return null;
    case 1: return randInt(2) === 1;
    case 2: case 3: return randNumber();
    case 4: case 5: return randString(12);
    case 6: return Array.from({ length: randInt(5) }, () => randValue(depth + 1));
    default: {
      const names = new Set();
      const members = [];
      for (let i = randInt(7); i > 0; i--) {
        const name = randString(6);
        if (!names.has(name)) { names.add(name); members.push([name, randValue(depth + 1)]); }
      }
      return { members };
    }
  }
}

// The reference canonicalizer.
function canonical(v) {
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
  if (v !== null && typeof v === 'object') {
    const sorted = [...v.members].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return '{' + sorted.map(([k, x]) => JSON.stringify(k) + ':' + canonical(x)).join(',') + '}';
  }
  return JSON.stringify(v);
}

// A non-canonical spelling of the same value.
const ws = () => pick(['', '', ' ', '  ', '\t', ' \t ']);
function hex4(c) {
  const h = c.toString(16).padStart(4, '0');
  return '\\u' + (randInt(2) ? h : h.toUpperCase());
}
function spellString(s) {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0);
    const short = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' }[ch];
    if (c > 0xffff) {
      out += randInt(3) === 0 ? hex4(ch.charCodeAt(0)) + hex4(ch.charCodeAt(1)) : ch;
    } else if (short !== undefined) {
      out += randInt(4) === 0 ? hex4(c) : short;
    } else if (c < 0x20) {
      out += hex4(c);
    } else if (ch === '/' && randInt(2) === 0) {
      out += '\\/';
    } else {
      out += randInt(5) === 0 ? hex4(c) : ch;
    }
  }
  return out + '"';
}
function spellNumber(x) {
  switch (randInt(4)) {
    case 0: return x.toExponential();
    case 1: return x.toPrecision(17);
    case 2: return Number.isInteger(x) && Math.abs(x) < 1e15 ? x.toFixed(1) : JSON.stringify(x);
    default: return Object.is(x, -0) ? '-0' : JSON.stringify(x);
  }
}
function spell(v) {
  if (Array.isArray(v)) return '[' + ws() + v.map((x) => spell(x)).join(ws() + ',' + ws()) + ws() + ']';
  if (v !== null && typeof v === 'object') {
    return '{' + ws() + v.members.map(([k, x]) => spellString(k) + ws() + ':' + ws() + spell(x)).join(ws() + ',' + ws()) + ws() + '}';
  }
  if (typeof v === 'string') return spellString(v);
  if (typeof v === 'number') return spellNumber(v);
  return JSON.stringify(v);
}

const lines = [];
for (let i = 0; i < 400; i++) {
  const v = randInt(5) === 0 ? randValue(0) : randValue(5 - randInt(4)) ?? null;
  const doc = (randInt(4) === 0 ? Array.from({ length: 3 }, () => randValue(1)) : { members: [['k' + i, v], ['data', randValue(1)]] });
  lines.push(ws() + spell(doc) + ws());
  lines.push(canonical(doc));
}
process.stdout.write(lines.join('\n') + '\n');
