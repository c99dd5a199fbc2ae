export { FaultsPage } from './FaultsPage.tsx';
