import { createHash } from "node:crypto";
import type { createClient as CreateClient } from "redis";
import type { AdvanceResult, RateLimitStore } from "../domain/access/rate-limiter.ts";

/**
 * The rate limiter's TATs in Redis (REDIS_URL), for servers on several machines or processes that
 * share no DATA_DIR. One Lua script makes the GCRA step atomic; each key expires when its budget
 * is whole again, so Redis holds only the budgets in use. TATs travel as strings: Redis turns Lua
 * numbers into integers and the TATs have fractions of a millisecond.
 */
const GCRA_SCRIPT = `
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or ARGV[1])
if tat < now then tat = now end
local next_tat = tat + interval
if next_tat - now > window then return {0, tostring(tat)} end
redis.call('SET', KEYS[1], tostring(next_tat), 'PX', math.ceil(next_tat - now))
return {1, tostring(next_tat)}
`;
const GCRA_SHA = createHash("sha1").update(GCRA_SCRIPT).digest("hex");
const KEY_PREFIX = "abeille:rl:";
/** A limiter answer slower than this lets the request through (the limiter's failure policy). */
const COMMAND_TIMEOUT_MS = 250;

export interface RedisRateLimitStoreOptions {
  url: string;
  /** Connection faults, reported as they happen (the client reconnects by itself). */
  onError?: (error: Error) => void;
}

export function createRedisRateLimitStore(options: RedisRateLimitStoreOptions): RateLimitStore {
  let client!: ReturnType<typeof CreateClient>;
  // The client is loaded only where REDIS_URL is set (it weighs on start-up and memory).
  const connected = import("redis")
    .then(({ createClient }) => {
      client = createClient({
        url: options.url,
        // Commands fail at once while disconnected rather than queue behind a dead connection.
        disableOfflineQueue: true,
        socket: { connectTimeout: 2000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5000) },
      });
      client.on("error", (error: Error) => options.onError?.(error));
      return client.connect();
    })
    .then(
      () => true,
      (error: unknown) => {
        options.onError?.(error instanceof Error ? error : new Error(String(error)));
        return false;
      },
    );

  const run = async (key: string, args: string[]): Promise<unknown> => {
    await connected;
    const call = { keys: [KEY_PREFIX + key], arguments: args };
    try {
      return await client.evalSha(GCRA_SHA, call);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      return await client.eval(GCRA_SCRIPT, call);
    }
  };

  return {
    async advance(key, now, intervalMs, windowMs): Promise<AdvanceResult> {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`Redis did not answer within ${COMMAND_TIMEOUT_MS} ms`)),
          COMMAND_TIMEOUT_MS,
        );
      });
      try {
        const reply = await Promise.race([run(key, [String(now), String(intervalMs), String(windowMs)]), timeout]);
        const [allowed, tat] = reply as [number, string];
        return { allowed: allowed === 1, tat: Number(tat) };
      } finally {
        clearTimeout(timer);
      }
    },
    async clear() {
      await connected;
      for await (const keys of client.scanIterator({ MATCH: `${KEY_PREFIX}*`, COUNT: 500 })) {
        if (keys.length > 0) await client.del(keys);
      }
    },
    async close() {
      if (!(await connected) || !client.isOpen) return;
      // A client reconnecting to a dead server would wait for it to come back: drop it at once.
      if (client.isReady) await client.close();
      else client.destroy();
    },
  };
}
