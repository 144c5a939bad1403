module kubenode.test/load

go 1.26
