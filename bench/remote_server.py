# SPDX-License-Identifier: BSD-3-Clause
"""A static HTTP server over one directory, standing in for object
storage in bench/test_remote.py and bench/remote_bench.py: aiohttp's
static route answers Range requests (206) as S3 and GCS do.

    /usr/bin/python3 bench/remote_server.py DIR PORTFILE [ACCESS_LOG]

Listens on 127.0.0.1 at a free port, writes the port to PORTFILE, and
serves until killed. ACCESS_LOG gets one line per request: status, the
Range header, the path.
"""
import logging
import sys

from aiohttp import web


def main():
    root, portfile = sys.argv[1], sys.argv[2]
    log = sys.argv[3] if len(sys.argv) > 3 else None
    app = web.Application()
    app.router.add_static("/", root, show_index=False, follow_symlinks=False)
    runner = web.AppRunner(app, access_log=logging.getLogger("access") if log else None,
                           access_log_format='%s "%{Range}i" %r')
    if log:
        h = logging.FileHandler(log)
        logging.getLogger("access").addHandler(h)
        logging.getLogger("access").setLevel(logging.INFO)
    import asyncio

    async def start():
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        with open(portfile + ".tmp", "w") as f:
            f.write(str(port))
        import os
        os.replace(portfile + ".tmp", portfile)

    loop = asyncio.new_event_loop()
    loop.run_until_complete(start())
    loop.run_forever()


if __name__ == "__main__":
    main()
