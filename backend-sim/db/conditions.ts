/**
 * The WHERE conditions of a hand-written list query and their parameters, kept in step: each condition
 * brings the values of its `?` placeholders, in the order they appear. The list queries are written by hand
 * (their SQL text is their plan, statements are cached per text), so the text is exactly the conditions
 * given, in the order given.
 */
export class Conditions {
  readonly list: string[];
  readonly params: unknown[] = [];

  constructor(...always: string[]) {
    this.list = [...always];
  }

  /** Adds `condition` with the values of its placeholders. */
  add(condition: string, ...params: unknown[]): this {
    this.list.push(condition);
    this.params.push(...params);
    return this;
  }

  /** Adds `condition` when a filter is given (truthy), with `params`, or else the filter's value as its one parameter. */
  when(given: unknown, condition: string, ...params: unknown[]): this {
    if (given) this.add(condition, ...(params.length > 0 ? params : [given]));
    return this;
  }

  get size(): number {
    return this.list.length;
  }

  /** `a AND b AND …` */
  joined(): string {
    return this.list.join(' AND ');
  }

  /** ` AND a AND b …`: the conditions after one already written. */
  appended(): string {
    return this.list.map((c) => ` AND ${c}`).join('');
  }
}
