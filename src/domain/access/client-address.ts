import { createHash } from "node:crypto";
import { isIP } from "node:net";

/**
 * The address anonymous budgets are counted on. Without trusted proxies it is the socket peer;
 * with N trusted proxies it is the N-th X-Forwarded-For entry from the right (the one the
 * outermost trusted proxy saw), never the left-most one a client can write itself.
 */
export function clientAddress(trustProxyHops: number, headers: Pick<Headers, "get">, peerAddress: string): string {
  if (trustProxyHops <= 0) return peerAddress;
  const forwarded = headers.get("x-forwarded-for");
  if (!forwarded) return peerAddress;
  const hops = forwarded.split(",").map((entry) => entry.trim());
  const candidate = hops[Math.max(0, hops.length - trustProxyHops)] ?? "";
  return isIP(stripPort(candidate)) ? stripPort(candidate) : peerAddress;
}

function stripPort(value: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed?.[1]) return bracketed[1];
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(value);
  return v4WithPort?.[1] ?? value;
}

/**
 * A pseudonymous key for the address an agent registers from (its budget bucket, hashed): the
 * keys one address registered share one budget without the address itself being stored.
 */
export function registrantKey(address: string): string {
  return createHash("sha256")
    .update(`abeille-registrant:${addressBucket(address)}`)
    .digest("base64url")
    .slice(0, 22);
}

/**
 * The budget key of an address: IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64 prefix
 * (one subscriber usually holds a whole /64, so single addresses would be free to rotate).
 */
export function addressBucket(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (isIP(address) !== 6) return address;
  const zoneless = address.split("%")[0] ?? address;
  const [head = "", tail = ""] = zoneless.split("::");
  const headParts = head ? head.split(":") : [];
  const tailParts = zoneless.includes("::") && tail ? tail.split(":") : [];
  const groups = zoneless.includes("::")
    ? [...headParts, ...Array(Math.max(0, 8 - headParts.length - tailParts.length)).fill("0"), ...tailParts]
    : headParts;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group || "0", 16).toString(16))
    .join(":")}::/64`;
}
