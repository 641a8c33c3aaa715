import { apiThroughput } from '/work/wt5/bench/suites/api.ts';
import { printTable } from '/work/wt5/bench/report.ts';
const rows = await apiThroughput({ seconds: Number(process.argv[2] ?? 10) });
printTable(rows);
process.exit(0);
