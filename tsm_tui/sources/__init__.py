"""Sources: find a run's files, parse their lines into StepRecords."""
