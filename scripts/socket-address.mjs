// Next.js gives route handlers no socket address (it only fills X-Forwarded-For when the client
// sent none). Every HTTP server this process makes stamps each request with the address its
// socket came from, replacing any copy the client sent; lib/auth/trust.ts reads it.
import http from "node:http";

const HEADER = "x-points-socket-address";
const INSTALLED = Symbol.for("points.socketAddressHeader");

if (!globalThis[INSTALLED]) {
  globalThis[INSTALLED] = true;
  process.env.POINTS_SOCKET_ADDRESS_HEADER = HEADER;
  const createServer = http.createServer;
  http.createServer = function createServerWithSocketAddress(...args) {
    const server = createServer.apply(this, args);
    server.prependListener("request", (request) => {
      const raw = [];
      for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
        if (request.rawHeaders[i].toLowerCase() !== HEADER) raw.push(request.rawHeaders[i], request.rawHeaders[i + 1]);
      }
      request.rawHeaders = raw;
      const address = request.socket?.remoteAddress;
      if (address) request.headers[HEADER] = address;
      else delete request.headers[HEADER];
    });
    return server;
  };
}
