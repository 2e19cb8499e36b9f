/**
 * Starts Debian's redis-server (installed by .ci/run) on a free loopback port, with no
 * persistence, for the tests of the Redis-backed stores. Never skipped: a missing server fails,
 * saying what to install (system-programs.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createConnection } from "node:net";
import { freePort } from "./spawn-start.ts";
import { requireProgram } from "./system-programs.ts";

export interface RunningRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startRedis(port?: number): Promise<RunningRedis> {
  const redisServer = requireProgram("redis-server", "redis-server");
  const listenPort = port ?? (await freePort());
  const child: ChildProcess = spawn(
    redisServer,
    ["--port", String(listenPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  const deadline = Date.now() + 10_000;
  while (!(await answersPing(listenPort))) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error("redis-server did not start within 10 s");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${listenPort}`,
    port: listenPort,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("error", () => resolve(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => {
      socket.destroy();
      resolve(data.toString().startsWith("+PONG"));
    });
  });
}
