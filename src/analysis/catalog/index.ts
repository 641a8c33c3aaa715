export { catalogEntry, matchCatalog, selectorOf } from './catalog.ts';
