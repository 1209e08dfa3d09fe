#!/usr/bin/env node
// SPDX-License-Identifier: BSD-3-Clause
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
// The descr a typed array stands for: Float64Array is "<f8", Uint8Array "|u1".
function descrOf(t) {
  const kind = t.constructor.name.startsWith("Float") ? "f" : t.constructor.name.startsWith("Uint") ? "u" : "i";
  return (t.BYTES_PER_ELEMENT === 1 ? "|" : "<") + kind + t.BYTES_PER_ELEMENT;
}

let out;
try {
  const file = readFileSync(process.argv[2]);
  const arr = fromArrayBuffer(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength));
  out = { ok: true };
  if (arr.data !== undefined) {
    const d = arr.data;
    out.descr = descrOf(d);
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
