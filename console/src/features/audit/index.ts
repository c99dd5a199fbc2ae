export { AuditPage } from './AuditPage.tsx';
export { AuditDetailPage } from './AuditDetailPage.tsx';
export { JournalBanner } from './JournalBanner.tsx';
