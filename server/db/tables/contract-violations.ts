/** One operation and rule the contract guard saw violated (migration 027, server/proxy/contract-store.ts). */
export interface ContractViolationsTable {
  /** The OpenAPI operationId (`getPacientesById`). */
  operation: string;
  /** The contract's path (`responses.201.headers.Location`). */
  rule: string;
  count: number;
  first_seen: string;
  last_seen: string;
  /** What was seen the last time, redacted (a type and size, a status, a contract code). */
  last_value: string;
  /** The journal entry of the last time. */
  last_request_id: string;
}
