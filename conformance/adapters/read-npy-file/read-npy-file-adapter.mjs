#!/usr/bin/env node
// SPDX-License-Identifier: BSD-3-Clause
// npyconform adapter for read-npy-file (its default export, readNumpyFile
// (path)): it returns a DataArray {typedArray, shape}, refuses Fortran
// order, and names no descr, so the descr reported is the one the typed
// array stands for (PROTOCOL.md, "Output"): Float64Array is "<f8",
// Uint8Array "|u1". fortran_order is false: every array it returns is
// in C order. There is no archive API: a .npz is refused.
import { createHash } from "node:crypto";
import { createRequire } from "node:module";

const readNumpyFile = createRequire(import.meta.url)("read-npy-file").default;
// The element type of a typed array, as numpy spells it on a little-endian host.
function descrOf(t) {
  const n = t.constructor.name;
  const kind = n.startsWith("Float") ? "f" : /^(Big)?Uint/.test(n) ? "u" : "i";
  return (t.BYTES_PER_ELEMENT === 1 ? "|" : "<") + kind + t.BYTES_PER_ELEMENT;
}

let out;
try {
  if (process.argv[2].endsWith(".npz")) throw new Error("read-npy-file has no archive (.npz) API");
  const arr = readNumpyFile(process.argv[2]);
  const t = arr.typedArray;
  out = {
    ok: true,
    descr: descrOf(t),
    shape: arr.shape,
    fortran_order: false,
    itemsize: t.BYTES_PER_ELEMENT,
    payload_sha256: createHash("sha256").update(Buffer.from(t.buffer, t.byteOffset, t.byteLength)).digest("hex"),
  };
} catch (e) {
  out = { ok: false, error: `${e.name}: ${e.message}`.split("\n")[0] };
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exitCode = out.ok ? 0 : 1;
