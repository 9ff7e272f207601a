/**
 * Greenfield's evidence for steps 1–7 (step 4, UI Design, is passed over), one file a pattern, in step
 * order. No test runner here: the bench (bench/history.ts) walks the same steps with it.
 */
export const GREENFIELD_1_TO_7 = [
  '00_problem/problem.md',
  '00_problem/acceptance_criteria.md',
  '01_solution/solution_draft_01.md',
  '01_solution/solution.md',
  '02_document/architecture.md',
  '02_tasks/_index.md',
  '03_implementation/implementation_report.md',
  '03_implementation/test_report.md',
];
