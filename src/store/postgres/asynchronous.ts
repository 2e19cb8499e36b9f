/**
 * A port as the PostgreSQL store serves it while the domain's ports are still being turned
 * asynchronous (issue 26, step 1): the same methods, each answering a Promise. Once a port is
 * asynchronous in the domain, its PostgreSQL implementation takes the port's own type instead.
 */
export type Asynchronous<Port> = {
  [Method in keyof Port]: Port[Method] extends (...args: infer Args) => infer Result
    ? (...args: Args) => Promise<Awaited<Result>>
    : Port[Method];
};
