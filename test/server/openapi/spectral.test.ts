import { Document, Spectral, type ISpectralDiagnostic, type RulesetDefinition } from '@stoplight/spectral-core';
import Parsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

/**
 * Issue 29: the served /openapi.json passes Spectral's recommended OpenAPI rules (`spectral:oas`) with no error
 * (code generators and linters that integrators run choke on what this flags). The warnings left are these, each
 * for its reason; a new one fails the test until it is fixed or listed here with its own.
 */
const ACCEPTED_WARNINGS: Record<string, string> = {
  // An appliance on the clinic's own machine: there is no vendor contact to name in the document.
  'info-contact info': 'the document has no contact',
  // The catalogue of every error code with its status (x-http-status), for clients' code generators; each response
  // names its own codes in Error's variants instead of referencing it.
  'oas3-unused-component components.schemas.ErrorCode': 'ErrorCode is the catalogue, referenced by no operation',
};

const SEVERITY = ['error', 'warning', 'information', 'hint'] as const;

let stack: TestStack;
let findings: ISpectralDiagnostic[];

const describe = (d: ISpectralDiagnostic) =>
  `${SEVERITY[d.severity]} ${d.code} at ${d.path.join('.') || '(root)'}: ${d.message}`;

beforeAll(async () => {
  stack = await startTestStack();
  const res = await stack.raw({ path: '/openapi.json' });
  expect(res.status).toBe(200);
  const spectral = new Spectral();
  // The ruleset's declared type lacks `extends`, which RulesetDefinition's union requires of one branch.
  spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] });
  findings = await spectral.run(new Document(res.text, Parsers.Json, '/openapi.json'));
});
afterAll(async () => stack?.stop());

test('/openapi.json has no error under Spectral’s recommended OpenAPI rules', () => {
  expect(findings.filter((d) => d.severity === 0).map(describe)).toEqual([]);
});

test('/openapi.json has no warning under them but the accepted ones, each with its reason', () => {
  const warnings = findings.filter((d) => d.severity === 1);
  const unexpected = warnings.filter((d) => !(`${d.code} ${d.path.join('.')}` in ACCEPTED_WARNINGS));
  expect(unexpected.map(describe)).toEqual([]);
  // The rules really ran over this document: the accepted warnings are found where they are listed.
  expect(warnings.map((d) => `${d.code} ${d.path.join('.')}`).sort()).toEqual(Object.keys(ACCEPTED_WARNINGS).sort());
});
