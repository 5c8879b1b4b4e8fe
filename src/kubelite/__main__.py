from kubelite.cli.main import main

raise SystemExit(main())
