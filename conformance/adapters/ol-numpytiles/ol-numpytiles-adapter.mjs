#!/usr/bin/env node
// npyconform adapter for @planet/ol-numpytiles (fromArrayBuffer), the
// NumpyTiles reader of OpenLayers. It returns {shape, data: TypedArray}
// and exposes no memory order, so fortran_order is false (its callers
// index in C order; PROTOCOL.md, "Output"); the descr is the one its typed
// array stands for. An empty file gives {}: reported as accepted with no
// field, as the caller gets it.
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";

const { fromArrayBuffer } = createRequire(import.meta.url)("@planet/ol-numpytiles");
const DESCR = new Map([
  [Uint8Array, "|u1"], [Int8Array, "|i1"], [Uint16Array, "<u2"], [Int16Array, "<i2"],
  [Uint32Array, "<u4"], [Int32Array, "<i4"], [Float32Array, "<f4"], [Float64Array, "<f8"],
]);

let out;
try {
  const file = readFileSync(process.argv[2]);
  const arr = fromArrayBuffer(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength));
  out = { ok: true };
  if (arr.data !== undefined) {
    const d = arr.data;
    out.descr = DESCR.get(d.constructor) ?? d.constructor.name;
    out.shape = arr.shape;
    out.fortran_order = false;
    out.itemsize = d.BYTES_PER_ELEMENT;
    out.payload_sha256 = createHash("sha256").update(Buffer.from(d.buffer, d.byteOffset, d.byteLength)).digest("hex");
  }
} catch (e) {
  out = { ok: false, error: `${e.name}: ${e.message}` };
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exitCode = out.ok ? 0 : 1;
