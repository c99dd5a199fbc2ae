export { ContractPage } from './ContractPage.tsx';
