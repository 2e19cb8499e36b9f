/**
 * Bare node:http serving fixed bytes with N processes (node:cluster), the ceiling this machine
 * allows for the same answer with the same processes as the server:
 *   node bench/bare-cluster.ts <port> <processes> <content-type> <body-file>
 * Prints "ready" once every process listens.
 */
import cluster from "node:cluster";
import { readFileSync } from "node:fs";
import http from "node:http";

const [port, processes, contentType, bodyFile] = process.argv.slice(2);
if (cluster.isPrimary) {
  let listening = 0;
  cluster.on("listening", () => {
    listening += 1;
    if (listening === Number(processes)) process.stdout.write("ready\n");
  });
  for (let index = 0; index < Number(processes); index++) cluster.fork();
  process.once("SIGTERM", () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGTERM");
    process.exit(0);
  });
} else {
  const body = readFileSync(bodyFile ?? "");
  http
    .createServer((_request, response) => {
      response.writeHead(200, { "content-type": contentType ?? "application/json", "content-length": body.length });
      response.end(body);
    })
    .listen(Number(port), "127.0.0.1");
}
