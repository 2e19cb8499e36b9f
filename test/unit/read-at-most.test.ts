/** The health check's shared reads (src/domain/read-at-most.ts): kept an interval, shared while under way, failures not kept. */
import { describe, expect, it } from "vitest";
import { readAtMostEvery } from "../../src/domain/read-at-most.ts";

describe("a read made at most once per interval", () => {
  it("keeps an answer for the interval, then reads again", async () => {
    let now = 1_000;
    let reads = 0;
    const read = readAtMostEvery(
      1_000,
      async () => ++reads,
      () => now,
    );
    expect(await read()).toBe(1);
    now = 1_999;
    expect(await read()).toBe(1);
    now = 2_000;
    expect(await read()).toBe(2);
    // A clock that went back reads again rather than keep the answer longer.
    now = 1_500;
    expect(await read()).toBe(3);
  });

  it("shares one read among the requests that come while it is under way", async () => {
    let release: (value: string) => void = () => undefined;
    let reads = 0;
    const read = readAtMostEvery(1_000, () => {
      reads += 1;
      return new Promise<string>((resolve) => {
        release = resolve;
      });
    });
    const answers = Promise.all([read(), read(), read()]);
    release("up");
    expect(await answers).toEqual(["up", "up", "up"]);
    expect(reads).toBe(1);
  });

  it("does not keep a failure: the next request reads again", async () => {
    let failing = true;
    let reads = 0;
    const read = readAtMostEvery(1_000, async () => {
      reads += 1;
      if (failing) throw new Error("database down");
      return "up";
    });
    await expect(Promise.all([read(), read()])).rejects.toThrow("database down");
    expect(reads).toBe(1);
    failing = false;
    expect(await read()).toBe("up");
    expect(reads).toBe(2);
  });
});
