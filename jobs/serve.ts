/**
 * Our HTTP server around the Astro bundle. Astro's standalone handler serves routes and static
 * files; we own listening, shutdown and (later) the published-artifact fast path.
 */
import { existsSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

type NodeHandler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

export const serverEntry = fileURLToPath(new URL("../dist/server/entry.mjs", import.meta.url));

export interface RunningServer {
  url: string;
  port: number;
  server: http.Server;
  close(): Promise<void>;
}

export async function startServer(options: { port: number; host: string }): Promise<RunningServer> {
  if (!existsSync(serverEntry)) {
    throw new Error(`No server build at ${serverEntry}; run \`npm run build\` first`);
  }
  process.env.ASTRO_NODE_AUTOSTART = "disabled";
  const entry = (await import(serverEntry)) as { handler: NodeHandler };
  const server = http.createServer(entry.handler);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
