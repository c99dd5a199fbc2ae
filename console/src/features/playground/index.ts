export { PlaygroundPage } from './PlaygroundPage.tsx';
