from tsm_tui.cli import main

raise SystemExit(main())
