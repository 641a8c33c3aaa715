import { dexRefresh } from './bench/suites/dex.ts';
import { printTable } from './bench/report.ts';
const rows = await dexRefresh({ tokens: Number(process.argv[2] ?? 20) });
printTable(rows);
console.log(JSON.stringify(rows));
process.exit(0);
