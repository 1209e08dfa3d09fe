#!/usr/bin/env node
// SPDX-License-Identifier: BSD-3-Clause
// npyconform adapter for the npm package numpy-parser (fromArrayBuffer).
// The library returns {data: TypedArray, shape}; it does not return the
// descr or fortran_order, so the descr reported is the one its typed array
// stands for, and fortran_order is false (it refuses Fortran-order files).
// It has no .npz reader: archives are refused.
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import npyparser from "numpy-parser";

const DESCR = {
  Uint8Array: "|u1", Int8Array: "|i1", Uint16Array: "<u2", Int16Array: "<i2",
  Uint32Array: "<u4", Int32Array: "<i4", Float32Array: "<f4", Float64Array: "<f8",
};

let out;
const path = process.argv[2];
try {
  if (path.endsWith(".npz")) throw new Error("numpy-parser reads no .npz archives");
  const file = readFileSync(path);
  const buf = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength);
  const arr = npyparser.fromArrayBuffer(buf);
  const data = arr.data;
  out = {
    ok: true,
    descr: DESCR[data.constructor.name] ?? data.constructor.name,
    shape: arr.shape,
    fortran_order: false,
    payload_sha256: createHash("sha256")
      .update(Buffer.from(data.buffer, data.byteOffset, data.byteLength)).digest("hex"),
  };
} catch (e) {
  out = { ok: false, error: `${e.name}: ${e.message}`.replace(/\s+/g, " ") };
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exitCode = out.ok ? 0 : 1;
