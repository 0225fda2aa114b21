	.file	"<string>"
	.globaltype	__stack_pointer, i32
	.functype	blur_u16 (i32, i32) -> (i32)
	.functype	halide_error_buffer_argument_is_null (i32, i32) -> (i32)
	.functype	halide_error_bad_dimensions (i32, i32, i32, i32) -> (i32)
	.functype	halide_error_host_is_null (i32, i32) -> (i32)
	.functype	halide_error_constraint_violated (i32, i32, i32, i32, i32) -> (i32)
	.functype	halide_error_bad_type (i32, i32, i32, i32) -> (i32)
	.functype	halide_error_access_out_of_bounds (i32, i32, i32, i32, i32, i32, i32) -> (i32)
	.functype	blur_u16.par_for.1 (i32, i32, i32) -> (i32)
	.functype	emscripten_stack_get_free () -> (i32)
	.functype	halide_malloc (i32, i32) -> (i32)
	.functype	halide_error_out_of_memory (i32) -> (i32)
	.functype	halide_free (i32, i32) -> ()
	.functype	halide_do_par_for (i32, i32, i32, i32, i32) -> (i32)
	.section	.text.blur_u16,"",@
	.globl	blur_u16
	.type	blur_u16,@function
blur_u16:
	.functype	blur_u16 (i32, i32) -> (i32)
	.local  	i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
	global.get	__stack_pointer
	i32.const	48
	i32.sub 
	local.tee	2
	global.set	__stack_pointer
	block   	
	block   	
	local.get	0
	br_if   	0
	i32.const	0
	i32.const	.L.str.0
	call	halide_error_buffer_argument_is_null
	local.set	0
	br      	1
.LBB0_2:
	end_block
	block   	
	local.get	0
	i32.const	28
	i32.add 
	i32.load	0
	local.tee	3
	i32.const	2
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.0
	local.get	3
	i32.const	2
	call	halide_error_bad_dimensions
	local.set	0
	br      	1
.LBB0_4:
	end_block
	block   	
	local.get	0
	i32.const	12
	i32.add 
	i32.load	0
	local.tee	4
	br_if   	0
	i32.const	0
	i32.const	.L.str.0
	call	halide_error_host_is_null
	local.set	0
	br      	1
.LBB0_6:
	end_block
	block   	
	local.get	1
	br_if   	0
	i32.const	0
	i32.const	.L.str.1
	call	halide_error_buffer_argument_is_null
	local.set	0
	br      	1
.LBB0_8:
	end_block
	block   	
	local.get	1
	i32.const	28
	i32.add 
	i32.load	0
	local.tee	3
	i32.const	2
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.1
	local.get	3
	i32.const	2
	call	halide_error_bad_dimensions
	local.set	0
	br      	1
.LBB0_10:
	end_block
	block   	
	local.get	1
	i32.const	12
	i32.add 
	i32.load	0
	local.tee	5
	br_if   	0
	i32.const	0
	i32.const	.L.str.1
	call	halide_error_host_is_null
	local.set	0
	br      	1
.LBB0_12:
	end_block
	block   	
	local.get	0
	i32.const	32
	i32.add 
	i32.load	0
	local.tee	6
	i32.const	8
	i32.add 
	i32.load	0
	local.tee	3
	i32.const	1
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.2
	local.get	3
	i32.const	.L.str.3
	i32.const	1
	call	halide_error_constraint_violated
	local.set	0
	br      	1
.LBB0_14:
	end_block
	block   	
	local.get	0
	i32.const	24
	i32.add 
	i32.load	0
	local.tee	0
	i32.const	69633
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.0
	local.get	0
	i32.const	69633
	call	halide_error_bad_type
	local.set	0
	br      	1
.LBB0_16:
	end_block
	block   	
	local.get	1
	i32.const	32
	i32.add 
	i32.load	0
	local.tee	0
	i32.const	8
	i32.add 
	i32.load	0
	local.tee	3
	i32.const	1
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.4
	local.get	3
	i32.const	.L.str.3
	i32.const	1
	call	halide_error_constraint_violated
	local.set	0
	br      	1
.LBB0_18:
	end_block
	block   	
	local.get	1
	i32.const	24
	i32.add 
	i32.load	0
	local.tee	3
	i32.const	69633
	i32.eq  
	br_if   	0
	i32.const	0
	i32.const	.L.str.1
	local.get	3
	i32.const	69633
	call	halide_error_bad_type
	local.set	0
	br      	1
.LBB0_20:
	end_block
	local.get	6
	i32.load	0
	local.set	7
	local.get	6
	i32.const	24
	i32.add 
	i32.load	0
	local.set	8
	local.get	6
	i32.const	20
	i32.add 
	i32.load	0
	local.set	9
	local.get	6
	i32.const	16
	i32.add 
	i32.load	0
	local.set	10
	local.get	0
	i32.const	16
	i32.add 
	i32.load	0
	local.set	3
	local.get	0
	i32.const	20
	i32.add 
	i32.load	0
	local.set	11
	local.get	0
	i32.const	24
	i32.add 
	i32.load	0
	local.set	12
	block   	
	local.get	0
	i32.const	4
	i32.add 
	i32.load	0
	local.get	0
	i32.load	0
	local.tee	0
	i32.add 
	i32.const	-1
	i32.add 
	local.tee	13
	local.get	0
	i32.sub 
	local.tee	14
	i32.const	-8
	i32.and 
	local.tee	15
	local.get	14
	i32.const	-7
	i32.add 
	local.tee	16
	local.get	15
	local.get	16
	i32.lt_s
	i32.select
	local.get	0
	i32.add 
	local.tee	17
	i32.const	9
	i32.add 
	local.tee	15
	local.get	16
	i32.const	31
	i32.shr_s
	local.get	16
	i32.and 
	local.get	0
	i32.add 
	local.tee	16
	i32.lt_s
	br_if   	0
	local.get	16
	local.get	7
	i32.lt_s
	local.get	15
	local.get	6
	i32.const	4
	i32.add 
	i32.load	0
	local.get	7
	i32.add 
	local.tee	6
	i32.ge_s
	i32.or  
	i32.eqz
	br_if   	0
	i32.const	0
	i32.const	.L.str.5
	i32.const	0
	local.get	16
	local.get	15
	local.get	7
	local.get	6
	i32.const	-1
	i32.add 
	call	halide_error_access_out_of_bounds
	local.set	0
	br      	1
.LBB0_23:
	end_block
	block   	
	local.get	11
	local.get	3
	i32.add 
	i32.const	-1
	i32.add 
	local.tee	18
	local.get	3
	i32.sub 
	local.tee	15
	i32.const	8
	i32.add 
	local.tee	19
	i32.const	-8
	i32.and 
	i32.const	-8
	i32.add 
	local.tee	11
	local.get	15
	i32.const	-7
	i32.add 
	local.tee	6
	local.get	11
	local.get	6
	i32.lt_s
	i32.select
	local.get	3
	i32.add 
	local.tee	11
	i32.const	9
	i32.add 
	local.tee	20
	local.get	6
	i32.const	31
	i32.shr_s
	local.get	6
	i32.and 
	local.get	3
	i32.add 
	local.tee	6
	i32.lt_s
	br_if   	0
	local.get	6
	local.get	10
	i32.lt_s
	local.get	20
	local.get	9
	local.get	10
	i32.add 
	local.tee	9
	i32.ge_s
	i32.or  
	i32.eqz
	br_if   	0
	i32.const	0
	i32.const	.L.str.5
	i32.const	1
	local.get	6
	local.get	20
	local.get	10
	local.get	9
	i32.const	-1
	i32.add 
	call	halide_error_access_out_of_bounds
	local.set	0
	br      	1
.LBB0_26:
	end_block
	block   	
	local.get	17
	i32.const	7
	i32.add 
	local.tee	17
	local.get	16
	i32.lt_s
	br_if   	0
	local.get	14
	i32.const	6
	i32.gt_s
	br_if   	0
	i32.const	0
	i32.const	.L.str.6
	i32.const	0
	local.get	16
	local.get	17
	local.get	0
	local.get	13
	call	halide_error_access_out_of_bounds
	local.set	0
	br      	1
.LBB0_29:
	end_block
	block   	
	local.get	11
	i32.const	7
	i32.add 
	local.tee	16
	local.get	6
	i32.lt_s
	br_if   	0
	local.get	15
	i32.const	6
	i32.gt_s
	br_if   	0
	i32.const	0
	i32.const	.L.str.6
	i32.const	1
	local.get	6
	local.get	16
	local.get	3
	local.get	18
	call	halide_error_access_out_of_bounds
	local.set	0
	br      	1
.LBB0_32:
	end_block
	local.get	2
	local.get	8
	i32.store	44
	local.get	2
	local.get	10
	i32.store	40
	local.get	2
	local.get	7
	i32.store	36
	local.get	2
	local.get	4
	i32.store	32
	local.get	2
	local.get	18
	i32.store	28
	local.get	2
	local.get	13
	i32.store	24
	local.get	2
	local.get	12
	i32.store	20
	local.get	2
	local.get	3
	i32.store	16
	local.get	2
	local.get	0
	i32.store	12
	local.get	2
	local.get	5
	i32.store	8
	i32.const	0
	i32.const	blur_u16.par_for.1
	i32.const	0
	local.get	19
	i32.const	3
	i32.shr_s
	local.get	2
	i32.const	8
	i32.add 
	call	halide_do_par_for
	local.tee	0
	br_if   	0
	local.get	1
	i32.const	16
	i32.add 
	local.tee	1
	local.get	1
	i64.load	0
	i64.const	1
	i64.or  
	i64.store	0
	i32.const	0
	local.set	0
.LBB0_34:
	end_block
	local.get	2
	i32.const	48
	i32.add 
	global.set	__stack_pointer
	local.get	0
	end_function

	.section	.text.blur_u16.par_for.1,"",@
	.type	blur_u16.par_for.1,@function
blur_u16.par_for.1:
	.functype	blur_u16.par_for.1 (i32, i32, i32) -> (i32)
	.local  	i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, v128, v128
	global.get	__stack_pointer
	local.tee	3
	local.set	4
	local.get	2
	i32.const	16
	i32.add 
	i32.load	0
	local.get	2
	i32.const	4
	i32.add 
	i32.load	0
	local.tee	5
	i32.sub 
	local.tee	6
	i32.const	8
	i32.add 
	local.tee	7
	i32.const	-8
	i32.and 
	i32.const	-8
	i32.add 
	local.tee	8
	local.get	6
	i32.const	-7
	i32.add 
	local.tee	6
	local.get	8
	local.get	6
	i32.lt_s
	i32.select
	local.tee	9
	local.get	6
	i32.const	31
	i32.shr_s
	local.get	6
	i32.and 
	local.tee	10
	i32.sub 
	local.tee	11
	i32.const	8
	i32.add 
	local.tee	12
	i32.const	10
	i32.mul 
	local.tee	8
	i32.const	1
	local.get	8
	i32.const	1
	i32.gt_s
	i32.select
	i32.const	1
	i32.shl 
	local.set	13
	local.get	2
	i32.const	8
	i32.add 
	i32.load	0
	local.set	8
	local.get	2
	i32.const	20
	i32.add 
	i32.load	0
	local.set	14
	local.get	2
	i32.const	36
	i32.add 
	i32.load	0
	local.set	15
	local.get	2
	i32.const	32
	i32.add 
	i32.load	0
	local.set	16
	local.get	2
	i32.const	28
	i32.add 
	i32.load	0
	local.set	17
	local.get	2
	i32.const	24
	i32.add 
	i32.load	0
	local.set	18
	local.get	2
	i32.const	12
	i32.add 
	i32.load	0
	local.set	19
	local.get	2
	i32.load	0
	local.set	20
	block   	
	block   	
	block   	
	block   	
	local.get	11
	i32.const	811
	i32.le_s
	br_if   	0
	i32.const	0
	local.set	21
	local.get	13
	i32.const	0
	call	emscripten_stack_get_free
	local.tee	2
	i32.const	-32768
	i32.add 
	local.tee	11
	local.get	11
	local.get	2
	i32.gt_u
	i32.select
	i32.gt_u
	br_if   	1
.LBB1_2:
	end_block
	local.get	3
	local.set	22
	local.get	3
	local.get	13
	i32.const	15
	i32.add 
	i32.const	-16
	i32.and 
	i32.sub 
	local.tee	23
	global.set	__stack_pointer
	i32.const	1
	local.set	21
	br      	1
.LBB1_3:
	end_block
	local.get	3
	local.set	22
	local.get	0
	local.get	13
	call	halide_malloc
	local.tee	23
	i32.eqz
	br_if   	1
.LBB1_4:
	end_block
	i32.const	0
	local.set	24
	local.get	1
	i32.const	3
	i32.shl 
	local.tee	2
	local.get	14
	local.get	8
	i32.sub 
	i32.const	-7
	i32.add 
	local.tee	3
	local.get	2
	local.get	3
	i32.lt_s
	i32.select
	local.tee	25
	local.get	8
	i32.add 
	local.tee	1
	i32.const	9
	i32.add 
	local.set	8
	block   	
	block   	
	local.get	7
	i32.const	3
	i32.shr_s
	local.tee	26
	local.get	26
	local.get	6
	i32.const	3
	i32.shr_s
	i32.const	1
	i32.add 
	local.tee	2
	local.get	26
	local.get	2
	i32.lt_s
	i32.select
	local.tee	2
	local.get	26
	local.get	26
	i32.const	31
	i32.shr_s
	i32.and 
	local.tee	27
	local.get	2
	local.get	27
	i32.gt_s
	i32.select
	local.tee	11
	i32.le_s
	br_if   	0
	local.get	2
	i32.const	0
	i32.gt_s
	local.set	24
	local.get	23
	local.get	27
	i32.const	4
	i32.shl 
	local.tee	3
	local.get	10
	i32.const	1
	i32.shl 
	i32.sub 
	i32.add 
	local.set	7
	local.get	18
	local.get	15
	local.get	1
	local.get	16
	i32.sub 
	i32.mul 
	i32.const	1
	i32.shl 
	local.get	3
	i32.add 
	local.get	5
	i32.const	1
	i32.shl 
	i32.add 
	local.get	17
	i32.const	1
	i32.shl 
	i32.sub 
	i32.add 
	local.set	14
	local.get	8
	local.get	1
	local.get	8
	local.get	1
	i32.gt_s
	i32.select
	local.set	28
	local.get	11
	i32.const	3
	i32.shl 
	local.set	29
	local.get	26
	local.get	11
	i32.sub 
	local.set	30
	local.get	12
	i32.const	1
	i32.shl 
	local.set	31
	local.get	15
	i32.const	1
	i32.shl 
	local.set	32
	local.get	11
	local.get	27
	i32.sub 
	local.set	33
	local.get	18
	local.get	5
	local.get	17
	i32.sub 
	i32.const	1
	i32.shl 
	i32.add 
	local.set	18
	local.get	2
	i32.const	0
	i32.gt_s
	local.set	34
	local.get	1
	local.set	17
.LBB1_6:
	loop    	
	local.get	17
	local.get	1
	i32.sub 
	local.get	12
	i32.mul 
	local.set	5
	local.get	17
	local.get	16
	i32.sub 
	local.get	15
	i32.mul 
	local.set	13
	local.get	7
	local.set	8
	local.get	14
	local.set	2
	local.get	33
	local.set	3
	block   	
	local.get	34
	i32.eqz
	br_if   	0
.LBB1_7:
	loop    	
	local.get	8
	local.get	2
	i32.const	2
	i32.add 
	v128.load	0:p2align=1
	local.get	2
	v128.load	0:p2align=1
	i16x8.add
	local.get	2
	i32.const	4
	i32.add 
	v128.load	0:p2align=1
	i16x8.add
	local.tee	35
	i32x4.extend_low_i16x8_u
	v128.const	43691, 43691, 43691, 43691
	local.tee	36
	i32x4.mul
	i32.const	17
	i32x4.shr_u
	local.get	35
	i32x4.extend_high_i16x8_u
	local.get	36
	i32x4.mul
	i32.const	17
	i32x4.shr_u
	i16x8.narrow_i32x4_u
	v128.store	0:p2align=1
	local.get	8
	i32.const	16
	i32.add 
	local.set	8
	local.get	2
	i32.const	16
	i32.add 
	local.set	2
	local.get	3
	i32.const	-1
	i32.add 
	local.tee	3
	br_if   	0
.LBB1_8:
	end_loop
	end_block
	local.get	18
	local.get	13
	i32.const	1
	i32.shl 
	i32.add 
	local.set	13
	local.get	23
	local.get	5
	i32.const	1
	i32.shl 
	i32.add 
	local.set	5
	local.get	29
	local.set	2
	local.get	30
	local.set	3
.LBB1_9:
	loop    	
	local.get	5
	local.get	2
	local.get	6
	local.get	2
	local.get	6
	i32.lt_s
	i32.select
	local.tee	8
	local.get	10
	i32.sub 
	i32.const	1
	i32.shl 
	i32.add 
	local.get	13
	local.get	8
	i32.const	1
	i32.shl 
	i32.add 
	local.tee	8
	i32.const	2
	i32.add 
	v128.load	0:p2align=1
	local.get	8
	v128.load	0:p2align=1
	i16x8.add
	local.get	8
	i32.const	4
	i32.add 
	v128.load	0:p2align=1
	i16x8.add
	local.tee	35
	i32x4.extend_low_i16x8_u
	v128.const	43691, 43691, 43691, 43691
	local.tee	36
	i32x4.mul
	i32.const	17
	i32x4.shr_u
	local.get	35
	i32x4.extend_high_i16x8_u
	local.get	36
	i32x4.mul
	i32.const	17
	i32x4.shr_u
	i16x8.narrow_i32x4_u
	v128.store	0:p2align=1
	local.get	2
	i32.const	8
	i32.add 
	local.set	2
	local.get	3
	i32.const	-1
	i32.add 
	local.tee	3
	br_if   	0
	end_loop
	local.get	7
	local.get	31
	i32.add 
	local.set	7
	local.get	14
	local.get	32
	i32.add 
	local.set	14
	local.get	17
	local.get	28
	i32.eq  
	local.set	2
	local.get	17
	i32.const	1
	i32.add 
	local.set	17
	local.get	2
	i32.eqz
	br_if   	0
	br      	2
.LBB1_11:
	end_loop
	end_block
	local.get	2
	i32.const	1
	i32.lt_s
	br_if   	0
	local.get	23
	local.get	27
	i32.const	4
	i32.shl 
	local.tee	2
	local.get	10
	i32.const	1
	i32.shl 
	i32.sub 
	i32.add 
	local.set	13
	local.get	18
	local.get	15
	local.get	1
	local.get	16
	i32.sub 
	i32.mul 
	i32.const	1
	i32.shl 
	local.get	2
	i32.add 
	local.get	5
	i32.const	1
	i32.shl 
	i32.add 
	local.get	17
	i32.const	1
	i32.shl 
	i32.sub 
	i32.add 
	local.set	5
	local.get	8
	local.get	1
	local.get	8
	local.get	1
	i32.gt_s
	i32.select
	local.set	17
	local.get	12
	i32.const	1
	i32.shl 
	local.set	7
	local.get	15
	i32.const	1
	i32.shl 
	local.set	14
	local.get	11
	local.get	27
	i32.sub 
	local.set	15
.LBB1_13:
	loop    	
	local.get	13
	local.set	8
	local.get	5
	local.set	2
	local.get	15
	local.set	3
.LBB1_14:
	loop    	
	local.get	8
	local.get	2
	i32.const	2
	i32.add 
	v128.load	0:p2align=1
	local.get	2
	v128.load	0:p2align=1
	i16x8.add
	local.get	2
	i32.const	4
	i32.add 
	v128.load	0:p2align=1
	i16x8.add
	local.tee	35
	i32x4.extend_low_i16x8_u
	v128.const	43691, 43691, 43691, 43691
	local.tee	36
	i32x4.mul
	i32.const	17
	i32x4.shr_u
	local.get	35
	i32x4.extend_high_i16x8_u
	local.get	36
	i32x4.mul
	i32.const	17
	i32x4.shr_u
	i16x8.narrow_i32x4_u
	v128.store	0:p2align=1
	local.get	8
	i32.const	16
	i32.add 
	local.set	8
	local.get	2
	i32.const	16
	i32.add 
	local.set	2
	local.get	3
	i32.const	-1
	i32.add 
	local.tee	3
	br_if   	0
	end_loop
	local.get	13
	local.get	7
	i32.add 
	local.set	13
	local.get	5
	local.get	14
	i32.add 
	local.set	5
	i32.const	1
	local.set	24
	local.get	1
	local.get	17
	i32.eq  
	local.set	2
	local.get	1
	i32.const	1
	i32.add 
	local.set	1
	local.get	2
	i32.eqz
	br_if   	0
.LBB1_16:
	end_loop
	end_block
	local.get	23
	local.get	27
	i32.const	4
	i32.shl 
	local.tee	2
	local.get	10
	i32.const	1
	i32.shl 
	i32.sub 
	i32.add 
	local.set	7
	local.get	20
	local.get	19
	local.get	25
	i32.mul 
	i32.const	1
	i32.shl 
	local.get	2
	i32.add 
	i32.add 
	local.set	14
	local.get	2
	local.get	9
	i32.const	1
	i32.shl 
	i32.add 
	local.get	10
	i32.const	2
	i32.shl 
	i32.sub 
	local.get	23
	i32.add 
	i32.const	16
	i32.add 
	local.set	15
	local.get	2
	local.get	9
	i32.const	2
	i32.shl 
	i32.add 
	local.get	10
	i32.const	6
	i32.mul 
	i32.sub 
	local.get	23
	i32.add 
	i32.const	32
	i32.add 
	local.set	16
	local.get	26
	local.get	11
	i32.sub 
	local.set	31
	local.get	11
	i32.const	3
	i32.shl 
	local.set	32
	local.get	12
	i32.const	1
	i32.shl 
	local.set	28
	local.get	19
	i32.const	1
	i32.shl 
	local.set	29
	i32.const	0
	local.set	1
.LBB1_17:
	loop    	
	local.get	7
	local.set	2
	local.get	15
	local.set	8
	local.get	16
	local.set	3
	local.get	14
	local.set	13
	local.get	27
	local.set	5
	block   	
	local.get	24
	i32.eqz
	br_if   	0
.LBB1_18:
	loop    	
	local.get	13
	local.get	8
	v128.load	0:p2align=1
	local.get	2
	v128.load	0:p2align=1
	i16x8.add
	local.get	3
	v128.load	0:p2align=1
	i16x8.add
	local.tee	35
	i32x4.extend_low_i16x8_u
	v128.const	43691, 43691, 43691, 43691
	local.tee	36
	i32x4.mul
	i32.const	17
	i32x4.shr_u
	local.get	35
	i32x4.extend_high_i16x8_u
	local.get	36
	i32x4.mul
	i32.const	17
	i32x4.shr_u
	i16x8.narrow_i32x4_u
	v128.store	0:p2align=1
	local.get	2
	i32.const	16
	i32.add 
	local.set	2
	local.get	8
	i32.const	16
	i32.add 
	local.set	8
	local.get	3
	i32.const	16
	i32.add 
	local.set	3
	local.get	13
	i32.const	16
	i32.add 
	local.set	13
	local.get	5
	i32.const	1
	i32.add 
	local.tee	5
	local.get	11
	i32.lt_s
	br_if   	0
.LBB1_19:
	end_loop
	end_block
	block   	
	block   	
	local.get	26
	local.get	11
	i32.gt_s
	br_if   	0
	local.get	1
	i32.const	1
	i32.add 
	local.set	1
	br      	1
.LBB1_21:
	end_block
	local.get	20
	local.get	1
	local.get	25
	i32.add 
	local.get	19
	i32.mul 
	i32.const	1
	i32.shl 
	i32.add 
	local.set	13
	local.get	1
	local.get	12
	i32.mul 
	i32.const	1
	i32.shl 
	local.set	5
	local.get	1
	i32.const	1
	i32.add 
	local.tee	30
	local.get	12
	i32.mul 
	i32.const	1
	i32.shl 
	local.set	17
	local.get	1
	i32.const	2
	i32.add 
	local.get	12
	i32.mul 
	i32.const	1
	i32.shl 
	local.set	1
	local.get	31
	local.set	3
	local.get	32
	local.set	2
.LBB1_22:
	loop    	
	local.get	13
	local.get	2
	local.get	6
	local.get	2
	local.get	6
	i32.lt_s
	i32.select
	local.tee	8
	i32.const	1
	i32.shl 
	i32.add 
	local.get	23
	local.get	8
	local.get	10
	i32.sub 
	i32.const	1
	i32.shl 
	i32.add 
	local.tee	8
	local.get	17
	i32.add 
	v128.load	0:p2align=1
	local.get	8
	local.get	5
	i32.add 
	v128.load	0:p2align=1
	i16x8.add
	local.get	8
	local.get	1
	i32.add 
	v128.load	0:p2align=1
	i16x8.add
	local.tee	35
	i32x4.extend_low_i16x8_u
	v128.const	43691, 43691, 43691, 43691
	local.tee	36
	i32x4.mul
	i32.const	17
	i32x4.shr_u
	local.get	35
	i32x4.extend_high_i16x8_u
	local.get	36
	i32x4.mul
	i32.const	17
	i32x4.shr_u
	i16x8.narrow_i32x4_u
	v128.store	0:p2align=1
	local.get	2
	i32.const	8
	i32.add 
	local.set	2
	local.get	3
	i32.const	-1
	i32.add 
	local.tee	3
	br_if   	0
	end_loop
	local.get	30
	local.set	1
.LBB1_24:
	end_block
	local.get	7
	local.get	28
	i32.add 
	local.set	7
	local.get	15
	local.get	28
	i32.add 
	local.set	15
	local.get	16
	local.get	28
	i32.add 
	local.set	16
	local.get	14
	local.get	29
	i32.add 
	local.set	14
	local.get	1
	i32.const	8
	i32.ne  
	br_if   	0
	end_loop
	block   	
	local.get	21
	br_if   	0
	local.get	0
	local.get	23
	call	halide_free
.LBB1_27:
	end_block
	local.get	22
	drop
	local.get	4
	global.set	__stack_pointer
	i32.const	0
	return
.LBB1_28:
	end_block
	local.get	0
	call	halide_error_out_of_memory
	local.set	2
	local.get	4
	global.set	__stack_pointer
	local.get	2
	end_function

	.type	.L.str.0,@object
	.section	.rodata..L.str.0,"",@
.L.str.0:
	.asciz	"input"
	.size	.L.str.0, 6

	.type	.L.str.1,@object
	.section	.rodata..L.str.1,"",@
.L.str.1:
	.asciz	"blur_y"
	.size	.L.str.1, 7

	.type	.L.str.2,@object
	.section	.rodata..L.str.2,"",@
.L.str.2:
	.asciz	"input.stride.0"
	.size	.L.str.2, 15

	.type	.L.str.3,@object
	.section	.rodata..L.str.3,"",@
.L.str.3:
	.asciz	"1"
	.size	.L.str.3, 2

	.type	.L.str.4,@object
	.section	.rodata..L.str.4,"",@
.L.str.4:
	.asciz	"blur_y.stride.0"
	.size	.L.str.4, 16

	.type	.L.str.5,@object
	.section	.rodata..L.str.5,"",@
	.p2align	4, 0x0
.L.str.5:
	.asciz	"Input buffer input"
	.size	.L.str.5, 19

	.type	.L.str.6,@object
	.section	.rodata..L.str.6,"",@
	.p2align	4, 0x0
.L.str.6:
	.asciz	"Output buffer blur_y"
	.size	.L.str.6, 21

	.no_dead_strip	__indirect_function_table
	.section	.custom_section.target_features,"",@
	.int8	3
	.int8	43
	.int8	19
	.ascii	"nontrapping-fptoint"
	.int8	43
	.int8	8
	.ascii	"sign-ext"
	.int8	43
	.int8	7
	.ascii	"simd128"
	.section	.rodata..L.str.6,"",@
