export { TenantsPage } from './TenantsPage.tsx';
