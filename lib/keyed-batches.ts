//! Items bound for one key, sent one batch at a time per key: the first item goes out at once,
//! alone; what arrives for that key while its send is on the way waits and goes together in the
//! next send. A burst then costs a few sends instead of one per item, and a lone item waits for
//! nothing. Each item's promise settles with the send that carried it.

interface Waiting<T> {
  items: T[];
  settle: Array<{ resolve: () => void; reject: (err: unknown) => void }>;
}

export function createKeyedBatches<T>(send: (key: string, items: T[]) => Promise<void>, maxItems: number) {
  /** Per key with a send on the way: the batches waiting behind it, in arrival order. */
  const lines = new Map<string, Array<Waiting<T>>>();

  async function drain(key: string, line: Array<Waiting<T>>): Promise<void> {
    for (;;) {
      const batch = line.shift();
      if (!batch) {
        lines.delete(key);
        return;
      }
      try {
        await send(key, batch.items);
        for (const s of batch.settle) s.resolve();
      } catch (err) {
        for (const s of batch.settle) s.reject(err);
      }
    }
  }

  /** Resolves once a send carrying `item` went through; rejects with that send's error. */
  function add(key: string, item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      let line = lines.get(key);
      const start = line === undefined;
      if (!line) lines.set(key, (line = []));
      let last = line.at(-1);
      // Only a batch not yet sent takes more: the one being sent has left the line.
      if (!last || last.items.length >= maxItems) line.push((last = { items: [], settle: [] }));
      last.items.push(item);
      last.settle.push({ resolve, reject });
      if (start) void drain(key, line);
    });
  }

  return { add };
}
