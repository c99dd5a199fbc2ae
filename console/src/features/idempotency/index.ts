export { IdempotencyPage } from './IdempotencyPage.tsx';
