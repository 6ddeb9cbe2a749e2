"""CPFS for Lingjun as training volumes: an existing file system (no Pulumi resource creates
one), mounted through ACK's CPFS for Lingjun CSI driver, whose add-ons the stack installs."""
