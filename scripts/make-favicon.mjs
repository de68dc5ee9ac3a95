// Writes src/console/assets/favicon.ico: the console's icon (favicon.svg beside it, a pulse
// line on a blue rounded square) drawn at 32×32 and stored as a PNG inside an ICO file, for
// browsers and tools that ask for /favicon.ico. Run it again after changing the drawing:
//   node scripts/make-favicon.mjs
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const SIZE = 32;
const BLUE = [0x0b, 0x5c, 0xad];
const WHITE = [0xff, 0xff, 0xff];
// favicon.svg's path, M4 17 h6 l3-8 5 14 3-6 h7, as points; its stroke is 3 wide with round ends.
const LINE = [
  [4, 17],
  [10, 17],
  [13, 9],
  [18, 23],
  [21, 17],
  [28, 17],
];
const HALF_STROKE = 1.5;
const RADIUS = 6;

function distanceToSegment(px, py, [ax, ay], [bx, by]) {
  const [dx, dy] = [bx - ax, by - ay];
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** Is the point inside the rounded square? */
function inSquare(x, y) {
  const cx = Math.min(Math.max(x, RADIUS), SIZE - RADIUS);
  const cy = Math.min(Math.max(y, RADIUS), SIZE - RADIUS);
  return Math.hypot(x - cx, y - cy) <= RADIUS;
}

// 4×4 samples per pixel, for smooth edges.
function pixel(x, y) {
  let square = 0;
  let stroke = 0;
  for (let i = 0; i < 16; i++) {
    const [sx, sy] = [x + ((i % 4) + 0.5) / 4, y + (Math.floor(i / 4) + 0.5) / 4];
    if (!inSquare(sx, sy)) continue;
    square++;
    if (LINE.slice(1).some((end, j) => distanceToSegment(sx, sy, LINE[j], end) <= HALF_STROKE)) stroke++;
  }
  const mix = (k) => Math.round(square === 0 ? 0 : (BLUE[k] * (square - stroke) + WHITE[k] * stroke) / square);
  return [mix(0), mix(1), mix(2), Math.round((255 * square) / 16)];
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes) => (bytes.reduce((c, byte) => crcTable[(c ^ byte) & 0xff] ^ (c >>> 8), 0xffffffff) ^ 0xffffffff) >>> 0;

function chunk(type, data) {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function png() {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits per channel, RGBA
  const rows = [];
  for (let y = 0; y < SIZE; y++) rows.push(Buffer.from([0, ...Array.from({ length: SIZE }, (_, x) => pixel(x, y)).flat()]));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const image = png();
const ico = Buffer.alloc(22);
ico.writeUInt16LE(0, 0); // reserved
ico.writeUInt16LE(1, 2); // an icon
ico.writeUInt16LE(1, 4); // one image
ico.set([SIZE, SIZE, 0, 0], 6); // width, height, no palette, reserved
ico.writeUInt16LE(1, 10); // colour planes
ico.writeUInt16LE(32, 12); // bits per pixel
ico.writeUInt32LE(image.length, 14);
ico.writeUInt32LE(22, 18); // the image follows the header
const out = path.join(import.meta.dirname, '..', 'src', 'console', 'assets', 'favicon.ico');
fs.writeFileSync(out, Buffer.concat([ico, image]));
process.stdout.write(`wrote ${out} (${ico.length + image.length} bytes)\n`);
