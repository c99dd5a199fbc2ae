export { AuditPage } from './AuditPage.tsx';
export { AuditDetailPage } from './AuditDetailPage.tsx';
