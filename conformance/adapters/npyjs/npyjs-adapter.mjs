#!/usr/bin/env node
// SPDX-License-Identifier: BSD-3-Clause
// npyconform adapter for the npm package npyjs (see ../../PROTOCOL.md).
// Reports what npyjs read: its dtype (npyjs only reads little-endian data),
// its shape and fortranOrder, and the SHA-256 of the data it returned.
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { parse } from "npyjs";

function payloadBytes(data, dtype) {
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (dtype.startsWith("U")) { // strings: back to NUL-padded UCS-4
    const n = parseInt(dtype.slice(1), 10), out = Buffer.alloc(data.length * n * 4);
    data.forEach((s, i) => [...s].slice(0, n).forEach((ch, j) => out.writeUInt32LE(ch.codePointAt(0), (i * n + j) * 4)));
    return out;
  }
  return Buffer.from(data.map((b) => (b ? 1 : 0))); // bools
}

let out;
try {
  const file = readFileSync(process.argv[2]);
  const arr = parse(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength), { convertFloat16: false });
  out = {
    ok: true,
    descr: (/^(b1|i1|u1)$/.test(arr.dtype) ? "|" : "<") + arr.dtype,
    shape: arr.shape,
    fortran_order: arr.fortranOrder,
    payload_sha256: createHash("sha256").update(payloadBytes(arr.data, arr.dtype)).digest("hex"),
  };
} catch (e) {
  out = { ok: false, error: `${e.name}: ${e.message}` };
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exitCode = out.ok ? 0 : 1;
