from findling.cli import main

raise SystemExit(main())
