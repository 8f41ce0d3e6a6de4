// Runs work items a few at a time (--numParallelCollections). The first failure stops new
// items from starting; the ones running are awaited, then that failure is thrown.

export async function runPool<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (e) {
        failure ??= { error: e };
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker);
  await Promise.all(workers);
  if (failure !== undefined) throw failure.error;
}

/** A counting semaphore: at most `size` holders at once. */
export class Semaphore {
  private held = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async acquire(): Promise<void> {
    if (this.held < this.size) {
      this.held++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.held--;
  }
}
