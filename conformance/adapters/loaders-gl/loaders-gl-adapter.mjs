#!/usr/bin/env node
// SPDX-License-Identifier: BSD-3-Clause
// npyconform adapter for loaders.gl's NPYLoader (@loaders.gl/textures),
// through loaders.gl's ordinary entry point, parse() of @loaders.gl/core.
// The loader returns {data: TypedArray, header}; header is its own parse of
// the header dict. Reported (PROTOCOL.md, "Output"): the descr the typed
// array stands for (not the header's text), the header's shape and
// fortran_order as the loader parsed them, and the SHA-256 of the data.
// worker: false keeps the parse in this process (a worker would be fetched
// from the network).
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { parse } from "@loaders.gl/core";
import { NPYLoader } from "@loaders.gl/textures";

// The descr a typed array stands for: Float64Array is "<f8", Uint8Array "|u1".
function descrOf(t) {
  const kind = t.constructor.name.startsWith("Float") ? "f" : t.constructor.name.startsWith("Uint") ? "u" : "i";
  return (t.BYTES_PER_ELEMENT === 1 ? "|" : "<") + kind + t.BYTES_PER_ELEMENT;
}

let out;
try {
  const file = readFileSync(process.argv[2]);
  const buf = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength);
  const { data, header } = await parse(buf, NPYLoader, { worker: false });
  out = {
    ok: true,
    descr: descrOf(data),
    shape: header.shape,
    fortran_order: header.fortran_order,
    itemsize: data.BYTES_PER_ELEMENT,
    payload_sha256: createHash("sha256").update(Buffer.from(data.buffer, data.byteOffset, data.byteLength)).digest("hex"),
  };
} catch (e) {
  out = { ok: false, error: `${e.name}: ${e.message}` };
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exitCode = out.ok ? 0 : 1;
