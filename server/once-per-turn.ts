/**
 * A flush that runs once, on the next turn of the event loop, however many times it is asked for during this one:
 * the group commit of the journal, of PostgreSQL's reservations and of the rate limit's leases (everything asked
 * in a turn shares one statement or one transaction).
 */
export function oncePerTurn(flush: () => void): () => void {
  let scheduled = false;
  const run = () => {
    scheduled = false;
    flush();
  };
  return () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(run);
  };
}
