"""Node health on every platform: GPU and RDMA checks reported as node conditions, a taint that
keeps new jobs off a node whose check confirms a problem, the runtimes' pre-job GPU check, alert
rules and a dashboard, and the metrics behind them where the cloud does not send them."""
