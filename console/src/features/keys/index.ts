export { KeysPage } from './KeysPage.tsx';
