#!/usr/bin/env node
// SPDX-License-Identifier: BSD-3-Clause
// npyconform adapter for tfjs-npy (parse), the .npy reader written for
// TensorFlow.js: it returns a tf.Tensor of dtype float32 or int32, whatever
// the file stores. Reported is what the caller gets (PROTOCOL.md, "Readers
// that convert types"): the tensor's element type, its shape, and the hash
// of its values in that type. A tensor has no memory order, so
// fortran_order is false. There is no archive API: a .npz is refused.
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";

const { parse } = createRequire(import.meta.url)("tfjs-npy");
// tfjs-core's dtypes, as numpy type strings (little-endian host)
const DESCR = { float32: "<f4", int32: "<i4", bool: "|b1" };

let out;
try {
  if (process.argv[2].endsWith(".npz")) throw new Error("tfjs-npy has no archive (.npz) API");
  const file = readFileSync(process.argv[2]);
  const t = parse(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength));
  const d = t.dataSync();
  if (!(t.dtype in DESCR)) throw new Error(`tensor dtype ${t.dtype} has no type string here`);
  out = {
    ok: true,
    descr: DESCR[t.dtype],
    shape: t.shape,
    fortran_order: false,
    itemsize: d.BYTES_PER_ELEMENT,
    payload_sha256: createHash("sha256").update(Buffer.from(d.buffer, d.byteOffset, d.byteLength)).digest("hex"),
  };
} catch (e) {
  out = { ok: false, error: `${e.name}: ${e.message}`.split("\n")[0] };
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exitCode = out.ok ? 0 : 1;
