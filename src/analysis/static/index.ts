export { analyzeBytecode, analyzeStatic, type StaticDeps, type StaticInput } from './static.ts';
