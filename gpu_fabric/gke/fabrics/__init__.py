"""GKE's GPU fabrics (GPUDirect-TCPX, GPUDirect-TCPXO, gIB; NVLink domains on A4X): one module each
with its pod wiring and spec, their installers, and `by_name.FABRICS`, the one list of them."""
