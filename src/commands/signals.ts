// Control-flow signals a command can raise to the dispatcher (not errors sent to clients).

/** Close the connection instead of replying (test failpoints that simulate network errors). */
export class CloseConnectionSignal extends Error {
  constructor() {
    super('close the connection');
    this.name = 'CloseConnectionSignal';
  }
}
